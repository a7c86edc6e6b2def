"""Pure statistics of the agreement pages (numpy/scipy only)."""
