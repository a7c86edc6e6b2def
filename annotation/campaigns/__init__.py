"""Making a campaign: item setup, chosen items, forms, preview, webhook events, the API."""
