"""The only package that talks to a MongoDB server (pymongo): infer a model from a database or its exports.

``stats`` and ``infer`` are the pure core (documents in, a project out);
``files`` reads mongoexport output and ``source`` samples a live server.
"""
