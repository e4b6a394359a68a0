"""Client side of the Responses-over-WebSocket protocol."""
