//! The read-only document tools through the MCP server.
