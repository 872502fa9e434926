"""The diagram: scene (model-id -> item map, redraws from document signals), view, items, interactions."""
