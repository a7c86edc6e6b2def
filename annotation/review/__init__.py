"""Review campaigns: the disagreement queue, its campaigns, decisions, merges, forms and API."""
