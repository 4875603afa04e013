package argocd

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// health is what an Argo CD health script returns.
type health struct {
	Status  string
	Message string
}

// The health codes Argo CD accepts from a script; anything else becomes
// Unknown.
var healthCodes = map[string]bool{
	"Healthy": true, "Progressing": true, "Degraded": true,
	"Suspended": true, "Missing": true, "Unknown": true,
}

// runHealthScript runs a health script the way Argo CD's util/lua does: a
// state without the standard libraries, then only package, base and table
// opened; the object as the global table obj; a one-second limit; the
// script's last value read as {status, message}. Argo CD also opens a
// reduced os library (time and date only); the scripts must not need it, so
// it is left out and any use fails here.
func runHealthScript(script string, obj map[string]any) (health, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return health{}, fmt.Errorf("cannot open Lua library %q: %w", lib.name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return health{}, err
	}

	out, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return health{}, fmt.Errorf("expect table output from Lua script, not %s", l.Get(-1).Type())
	}
	status, err := stringField(out, "status")
	if err != nil {
		return health{}, err
	}
	message, err := stringField(out, "message")
	if err != nil {
		return health{}, err
	}
	if !healthCodes[status] {
		// What Argo CD shows for a status it does not know.
		return health{Status: "Unknown", Message: "Lua returned an invalid health status"}, nil
	}
	return health{Status: status, Message: message}, nil
}

// stringField reads a field Argo CD decodes into a Go string: absent is
// empty, anything but a string is an error.
func stringField(t *lua.LTable, name string) (string, error) {
	switch v := t.RawGetString(name).(type) {
	case *lua.LNilType:
		return "", nil
	case lua.LString:
		return string(v), nil
	default:
		return "", fmt.Errorf("health field %q is a %s, not a string", name, v.Type())
	}
}

// toLua converts an object decoded from JSON (as Argo CD's cluster cache
// holds it: integers as int64) into Lua values with Argo CD's rules: numbers
// become numbers, json.Number becomes a string, lists become sequences, maps
// become tables, and other types become nil.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case json.Number:
		return lua.LString(string(v))
	case int:
		return lua.LNumber(v)
	case int32:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := l.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(toLua(l, e))
		}
		return t
	case map[string]any:
		t := l.CreateTable(0, len(v))
		for k, e := range v {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	}
	return lua.LNil
}
