"""Modal questions and messages; each goes through one function tests can patch."""
