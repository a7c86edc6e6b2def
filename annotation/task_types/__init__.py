"""The task-type registry and the built-in types' names, answers and attention checks."""
