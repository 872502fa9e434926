"""Small reusable widgets (syntax highlighting for the preview's code views)."""
