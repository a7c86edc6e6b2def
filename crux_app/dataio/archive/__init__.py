"""Collection archives: which models one holds (``models``), writing one (``export``) and
restoring one into this install (``restore``)."""
