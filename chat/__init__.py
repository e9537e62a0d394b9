"""A game's chat."""
