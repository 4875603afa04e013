/*
Copyright 2026 The provider-coder Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package coder

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/coder/v2/codersdk"
)

// Class is what a controller needs to know about a failed Coder call.
type Class string

// Error classes.
const (
	// ClassNotFound: Coder's own API answered 404 for the object. A 404 for a
	// route Coder does not serve, or from something that is not Coder, is
	// Invalid, so it can never be mistaken for verified absence. Coder also
	// answers 404 for a group or user the token may not read, and for
	// what hangs off them (AI budgets): there a 404 proves absence only
	// with deletion.RowFound.
	ClassNotFound Class = "NotFound"
	// ClassConflict: the name is taken.
	ClassConflict Class = "Conflict"
	// ClassForbidden: see ForbiddenCause.
	ClassForbidden Class = "Forbidden"
	// ClassUnauthorized: the session token is missing, invalid or expired.
	ClassUnauthorized Class = "Unauthorized"
	// ClassUnavailable: Coder could not be reached or was overloaded; retry.
	ClassUnavailable Class = "Unavailable"
	// ClassInvalid: the request or the configuration is wrong; retrying the
	// same thing will not help.
	ClassInvalid Class = "Invalid"
	// ClassTLS: Coder's certificate was not trusted (unknown authority,
	// wrong host name, expired) or the URL's scheme does not match the
	// server. It is not Unavailable: an operator must fix the ProviderConfig's
	// TLS settings or URL, and a retry alone never succeeds.
	ClassTLS Class = "TLS"
	// ClassUnknown: anything else, including a caller's cancelled context.
	ClassUnknown Class = "Unknown"
)

// Classes are every Class an error can have.
func Classes() []Class {
	return []Class{ClassNotFound, ClassConflict, ClassForbidden, ClassUnauthorized, ClassUnavailable, ClassInvalid, ClassTLS, ClassUnknown}
}

// ForbiddenCause sentences, for conditions.
const (
	CauseNotLicensed = "Coder is not licensed for AI Gateway, or AI Gateway is not enabled on the deployment " +
		"(add a Coder licence with the AI Governance add-on, or set CODER_AI_GATEWAY_ENABLED=true on the Coder server; " +
		"the ProviderConfig's AIGateway condition says which)"
	// CauseNoPermission is a 403 of a call whose permission is not known
	// here; a known call's names its permission (permissionsOf).
	CauseNoPermission = "the token's user lacks permission in Coder"
)

const (
	errDecode = "cannot read Coder's response"

	// Coder's answer for a path it does not serve, e.g. AI Gateway keys on a
	// build without the enterprise routes (coderd/httpapi.RouteNotFound).
	msgRouteNotFound  = "Route not found."
	hintRouteNotFound = "this Coder does not serve the endpoint; check its version and edition"
	// Coder's answer when a Premium feature is not entitled
	// (enterprise/coderd/templates.go, RequireFeatureMW).
	msgPremiumFeature = "is a Premium feature"
	// Go's http.Transport answer when an https URL reaches a plain http port.
	msgHTTPToHTTPS = "server gave HTTP response to HTTPS client"
	// What an error says of a success status the call did not expect.
	msgUnexpectedSuccess = "unexpected success status"
	msgNonJSON           = "unexpected non-JSON response"

	maxDetail = 256
	redacted  = "[REDACTED]"
)

// Error is a failed Coder call. Its text names the method, the path template,
// the status and Coder's message and validations. It never quotes our request,
// and the session token and every secret the request carried are redacted from
// whatever the server sent back, so it is safe in a Kubernetes condition.
type Error struct {
	method   string
	endpoint string

	// status is 0 when no HTTP response arrived.
	status      int
	message     string
	detail      string
	validations []codersdk.ValidationError
	// coderJSON is true when the error body was JSON, i.e. plausibly Coder's.
	coderJSON bool

	// cause is the transport or decode failure; causeMsg its redacted text.
	cause    error
	causeMsg string
	// sent is true when the request reached the wire before it failed.
	sent bool
	// local is true when we refused the call without sending it.
	local bool
}

// StatusCode is the HTTP status Coder answered, or 0 when none arrived.
func (e *Error) StatusCode() int { return e.status }

// Validations are Coder's per-field validation errors, if any.
func (e *Error) Validations() []codersdk.ValidationError { return e.validations }

// Unwrap exposes transport failures, so errors.Is(err, context.DeadlineExceeded)
// works. Coder's own error is not exposed: its text is not redacted.
func (e *Error) Unwrap() error { return e.cause }

func (e *Error) Error() string {
	var b strings.Builder
	_, _ = fmt.Fprintf(&b, "%s %s: ", e.method, e.endpoint)
	switch {
	case e.local:
		b.WriteString(e.message)
	case e.status == 0:
		b.WriteString("no response from Coder: ")
		b.WriteString(e.causeMsg)
	default:
		_, _ = fmt.Fprintf(&b, "%d %s", e.status, http.StatusText(e.status))
		if e.status == http.StatusForbidden {
			// Operators act on the cause, not on Coder's generic text.
			b.WriteString(": " + forbiddenCause(e.method, e.endpoint, e.message))
		}
		if e.message != "" {
			b.WriteString(": " + e.message)
		}
		if e.detail != "" {
			b.WriteString(" (" + e.detail + ")")
		}
		for _, v := range e.validations {
			b.WriteString("; " + v.Field + ": " + v.Detail)
		}
		if e.causeMsg != "" {
			b.WriteString(": " + e.causeMsg)
		}
	}
	return limitText(b.String(), maxErrorText)
}

// Format prints the error's safe text for every verb; %#v would otherwise
// dump the fields, including the unredacted cause.
func (e *Error) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, e.Error()) }

// invalidConfig is a configuration New refused before any request.
type invalidConfig string

func (e invalidConfig) Error() string { return string(e) }

func invalid(msg string) error { return invalidConfig(msg) }

// wrap turns what codersdk returned into an *Error, using what the transport
// saw on the wire, and redacts the call's secrets from every string kept.
func wrap(rec *call, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{method: rec.method, endpoint: rec.endpoint}
	var se *codersdk.Error
	switch {
	case errors.As(err, &se):
		// An answer arrived, so the request was sent: a success status
		// the call did not expect (200 for a create's 201, or an empty
		// body) may stand for an object Coder made.
		e.sent = true
		e.status = se.StatusCode()
		e.message, e.detail = se.Message, se.Detail
		e.validations = append([]codersdk.ValidationError(nil), se.Validations...)
		e.coderJSON = isJSON(rec.contentType)
		if rec.location != "" {
			e.message, e.detail = fmt.Sprintf(errFmtRedirect, rec.location), ""
		}
		if e.status >= 200 && e.status < 300 {
			// A success body is the object itself, and a key create's
			// carries the key's plaintext, which no redaction knows:
			// quote nothing of a success the call did not expect.
			e.message, e.detail, e.validations = msgUnexpectedSuccess, "", nil
			if !e.coderJSON {
				e.message = msgNonJSON
			}
		}
	case rec.status != 0:
		// A response arrived but its body could not be read or decoded;
		// codersdk drops the status in that case, the transport kept it.
		e.status, e.message = rec.status, errDecode
		e.cause, e.causeMsg = err, err.Error()
		e.sent = true
	default:
		e.cause, e.causeMsg = err, transportMessage(err)
		e.sent = rec.wrote.Load()
	}
	if e.status == http.StatusNotFound && e.message == msgRouteNotFound {
		e.detail = hintRouteNotFound
	}
	r := newRedactor(rec.secrets)
	e.message = r.Replace(e.message)
	e.detail = r.Replace(e.detail)
	e.causeMsg = r.Replace(e.causeMsg)
	for i := range e.validations {
		e.validations[i].Field = r.Replace(e.validations[i].Field)
		e.validations[i].Detail = r.Replace(e.validations[i].Detail)
	}
	return e
}

// shorten keeps a detail to one line of bounded length: non-JSON error bodies
// (a proxy's HTML page) can be kilobytes.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxDetail {
		return string(r[:maxDetail]) + "..."
	}
	return s
}

// transportMessage drops url.Error's repetition of method and URL, which our
// error already names as a path template.
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// An UnconfirmedError is a create Coder answered with an object other than
// the one asked for: another name, or an id a read does not confirm. The
// answer is not taken for the object (its id could be anyone's), and the
// outcome is unknown, as after a timeout: what the create made, if anything,
// is found again by the name asked for.
type UnconfirmedError struct {
	// Kind is what was created: "AI Gateway key" or "AI provider".
	Kind string
	// Asked is the name asked for; Got the name answered or read back;
	// ID the id answered.
	Asked, Got, ID string
}

func (e *UnconfirmedError) Error() string {
	return fmt.Sprintf("Coder answered the create of %s %q with %q (id %s), which is not the object asked for: the answer is not taken as this resource's; whatever the create made is looked up again by the name %q",
		e.Kind, e.Asked, e.Got, e.ID, e.Asked)
}
