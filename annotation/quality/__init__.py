"""Annotator quality: gold, attention and speeding checks, agreement, campaign progress."""
