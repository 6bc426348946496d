package tools

import "encoding/json"

// Call is one request from the model to run a tool.
type Call struct {
	// ID links the call to its result (the model's tool_call_id, or one tact generated).
	ID string `json:"id"`
	// Name is the tool the model asked for.
	Name string `json:"name"`
	// Arguments is the JSON object of arguments. It is nil when ParseError is set.
	Arguments json.RawMessage `json:"arguments"`
	// RawArguments is the argument text exactly as the model sent it.
	RawArguments string `json:"-"`
	// ParseError, when not empty, says why the arguments could not be read;
	// the call is not run and a parse_error result goes back to the model.
	ParseError string `json:"-"`
}
