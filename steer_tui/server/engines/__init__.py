"""Engines behind the gateway: local (llama.cpp), upstream (HTTP), replay (recorded)."""
