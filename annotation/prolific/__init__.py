"""Prolific: who may arrive from a study link."""
