"""The dashboard API: REST, live push (WebSocket, SSE), ingest, metrics, and the web page."""
