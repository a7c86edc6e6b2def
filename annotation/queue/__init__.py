"""The work queue: the next item, reservations and skips, and a campaign's item selection."""
