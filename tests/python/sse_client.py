"""Drives an MCP server over the old HTTP+SSE transport with the official Python SDK's sse_client.

Usage: python3 sse_client.py URL TOOL  (URL ends in /sse). Prints one JSON line with what it saw.
"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.sse import sse_client


def field(obj, *names):
    """The first of these attributes the SDK's model has (its names changed case across versions)."""
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    raise AttributeError(names[0])


async def main(url: str, tool: str) -> None:
    async with sse_client(url) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            result = await session.call_tool(tool, {})
            print(json.dumps({
                "server": field(init, "server_info", "serverInfo").name,
                "tools": [t.name for t in tools.tools],
                "isError": field(result, "is_error", "isError"),
                "text": result.content[0].text if result.content else "",
            }))


asyncio.run(main(sys.argv[1], sys.argv[2]))
