"""The game service: the event store, its services and selectors, the REST API and the tasks."""
