package builtin

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"tact/tools"
)

// CalculatorArgs are the parameters of the calculator tool.
type CalculatorArgs struct {
	A         float64 `json:"a" jsonschema:"the first operand"`
	B         float64 `json:"b" jsonschema:"the second operand"`
	Operation string  `json:"operation" jsonschema:"what to do: add (a+b), sub (a-b), mul (a*b) or div (a/b)"`
}

func calculatorTool() tools.Tool {
	spec := tools.Spec{
		Name:        "calculator",
		Description: "Exact arithmetic on two numbers: add, sub, mul or div. Use it instead of computing in your head.",
		Parameters: tools.SchemaForWith[CalculatorArgs](func(s *jsonschema.Schema) {
			tools.SetEnum(s, "operation", "add", "sub", "mul", "div")
		}),
		Annotations: tools.Annotations{ReadOnly: true, Cacheable: true},
		Source:      Source,
	}
	return tools.NewFunc(spec, func(_ context.Context, a CalculatorArgs) (tools.Result, error) {
		var v float64
		switch a.Operation {
		case "add":
			v = a.A + a.B
		case "sub":
			v = a.A - a.B
		case "mul":
			v = a.A * a.B
		case "div":
			if a.B == 0 {
				return tools.Fail(tools.KindExecutionFailed, "division by zero"), nil
			}
			v = a.A / a.B
		default:
			return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("unknown operation %q: use add, sub, mul or div", a.Operation)), nil
		}
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return tools.Fail(tools.KindExecutionFailed, "the result is too large to represent"), nil
		}
		return tools.OK(FormatNumber(v)), nil
	})
}

// FormatNumber prints v the way a person writes it: 345, 0.5, -2.25; very
// large or very small magnitudes use exponent notation (1e+21).
func FormatNumber(v float64) string {
	if v == 0 {
		return "0"
	}
	if abs := math.Abs(v); abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
