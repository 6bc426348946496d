#!/usr/bin/env bash
# A tiny MCP server over stdio (newline-delimited JSON-RPC) for the fault
# tests: it answers initialize and tools/list with one tool, "crash", and
# exits with status 3 as soon as any tool is called — an MCP server that
# dies mid-call. Unknown requests get "method not found"; notifications are
# ignored.
while IFS= read -r line; do
	id=""
	if [[ $line =~ \"id\":(\"[^\"]*\"|-?[0-9]+) ]]; then
		id=${BASH_REMATCH[1]}
	fi
	method=""
	if [[ $line =~ \"method\":\"([^\"]*)\" ]]; then
		method=${BASH_REMATCH[1]}
	fi
	[[ -z $id ]] && continue # a notification or a response
	case $method in
	initialize)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"exits","version":"1"}}}\n' "$id"
		;;
	tools/list)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"crash","description":"Exits the server.","inputSchema":{"type":"object"}}]}}\n' "$id"
		;;
	tools/call)
		echo "mcp_exits.sh: tool called, exiting" >&2
		exit 3
		;;
	ping)
		printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id"
		;;
	*)
		printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found: %s"}}\n' "$id" "$method"
		;;
	esac
done
