"""Crowd models of people's labels: aggregation, worker skill, crowd control, payment."""
