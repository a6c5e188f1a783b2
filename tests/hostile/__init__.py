"""Hostile input for polyrelu: a generated corpus of crafted network files and hypothesis strategies."""
