"""pytest plugin for the toolwire mock LLM provider."""

from .server import Session, ToolwireServer, Violation, start_toolwire, toolwire_binary

__all__ = ["Session", "ToolwireServer", "Violation", "start_toolwire", "toolwire_binary"]
