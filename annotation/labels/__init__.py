"""Every judge's stored labels of a collection's items, the review items, post-editing."""
