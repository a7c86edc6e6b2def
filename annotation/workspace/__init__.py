"""An annotator's work on an item: submitting, undoing, drafts, the workspace API."""
