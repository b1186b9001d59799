//! `doc_replace` through the MCP server.
