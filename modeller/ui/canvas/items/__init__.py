"""Graphics items. They draw what the model says and hold no state of their own."""
