package builtin

import (
	"context"
	"fmt"
	"time"

	"tact/tools"
)

// CurrentTimeArgs are the parameters of the current_time tool.
type CurrentTimeArgs struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"IANA time zone name such as Europe/Berlin; default is the local zone"`
}

// now is replaced in tests.
var now = time.Now

func currentTimeTool() tools.Tool {
	spec := tools.Spec{
		Name:        "current_time",
		Description: "The current date and time, optionally in an IANA time zone.",
		Annotations: readOnly(),
		Source:      Source,
	}
	return tools.NewFunc(spec, func(_ context.Context, a CurrentTimeArgs) (tools.Result, error) {
		loc := time.Local
		if a.Timezone != "" {
			l, err := time.LoadLocation(a.Timezone)
			if err != nil {
				return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("unknown time zone %q: use an IANA name such as Europe/Berlin or UTC", a.Timezone)), nil
			}
			loc = l
		}
		t := now().In(loc)
		return tools.OK(fmt.Sprintf("%s (%s, %s)", t.Format(time.RFC3339), t.Weekday(), loc)), nil
	})
}
