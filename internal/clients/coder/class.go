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
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/coder/coder/v2/codersdk"
)

// ClassOf classifies an error returned by this package. It is the one place
// that maps Coder's statuses and transport failures to classes.
func ClassOf(err error) Class {
	if err == nil {
		return ""
	}
	var ic invalidConfig
	if errors.As(err, &ic) {
		return ClassInvalid
	}
	var e *Error
	if errors.As(err, &e) {
		switch {
		case e.local:
			return ClassInvalid
		case e.status == 0:
			return transportClass(e.cause)
		}
		return statusClass(e)
	}
	var se *codersdk.Error
	if errors.As(err, &se) {
		return statusClass(&Error{status: se.StatusCode(), message: se.Message, validations: se.Validations, coderJSON: true})
	}
	return transportClass(err)
}

func statusClass(e *Error) Class {
	s := e.status
	switch {
	case s == http.StatusUnauthorized:
		return ClassUnauthorized
	case s == http.StatusForbidden:
		return ClassForbidden
	case s == http.StatusNotFound:
		if e.coderJSON && e.message != msgRouteNotFound {
			return ClassNotFound
		}
		return ClassInvalid
	case s == http.StatusConflict, s == http.StatusBadRequest && nameTaken(e):
		return ClassConflict
	case s == http.StatusRequestTimeout, s == http.StatusTooManyRequests, s >= 500:
		return ClassUnavailable
	case s >= 300:
		// 400, 405, 413, 422 and redirects: fix the request or the URL.
		return ClassInvalid
	case e.message == errDecode:
		// A success whose body broke off (Unavailable) or is not what we
		// expect (Unknown).
		return transportClass(e.cause)
	case !e.coderJSON:
		// A success status with a non-JSON body: the URL is not Coder's API.
		return ClassInvalid
	}
	return ClassUnknown
}

// nameTaken recognises Coder's answer to a duplicate AI Gateway key name,
// which is a 400 with a name validation, not a 409
// (enterprise/coderd/aigatewaykeys.go, writeKeyInsertError).
func nameTaken(e *Error) bool {
	for _, v := range e.validations {
		if v.Field == "name" && strings.Contains(v.Detail, "already exists") {
			return true
		}
	}
	return false
}

func transportClass(err error) Class {
	var (
		certErr    *tls.CertificateVerificationError
		authErr    x509.UnknownAuthorityError
		hostErr    x509.HostnameError
		invalidErr x509.CertificateInvalidError
		recordErr  tls.RecordHeaderError
		netErr     net.Error
		errno      syscall.Errno
	)
	switch {
	case err == nil:
		return ClassUnknown
	case errors.Is(err, errStalled):
		return ClassUnavailable
	case errors.Is(err, errBodyTooLarge):
		// Not Coder's API, or a hostile server: a retry reads as much again.
		return ClassInvalid
	case errors.As(err, &certErr), errors.As(err, &authErr), errors.As(err, &hostErr),
		errors.As(err, &invalidErr), errors.As(err, &recordErr),
		strings.Contains(err.Error(), msgHTTPToHTTPS):
		return ClassTLS
	case errors.Is(err, context.Canceled) && !isNetTimeout(err):
		// The caller gave up; that says nothing about Coder.
		return ClassUnknown
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr), errors.As(err, &errno),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		// Timeouts, refused and reset connections, DNS failures.
		return ClassUnavailable
	}
	return ClassUnknown
}

// IsNotFound is true when Coder's own API answered 404 for the object: it
// does not exist, or, for groups, users and their AI budgets, the token may
// not read it (see deletion.RowFound).
func IsNotFound(err error) bool { return ClassOf(err) == ClassNotFound }

// IsConflict is true when the name is taken.
func IsConflict(err error) bool { return ClassOf(err) == ClassConflict }

// IsForbidden is true when Coder refused the token's user; see ForbiddenCause.
func IsForbidden(err error) bool { return ClassOf(err) == ClassForbidden }

// IsUnauthorized is true when the session token was not accepted.
func IsUnauthorized(err error) bool { return ClassOf(err) == ClassUnauthorized }

// IsUnavailable is true when retrying later may succeed.
func IsUnavailable(err error) bool { return ClassOf(err) == ClassUnavailable }

// ForbiddenCause says, in a short sentence for a condition, why Coder answered
// 403: AI Gateway keys need an AI Gateway entitlement that is enabled on the
// deployment, and every call needs a user allowed to manage the object: the
// cause names the Coder permission the call needs and the least built-in
// role that has it (permissionsOf). It returns "" when err is not Forbidden.
func ForbiddenCause(err error) string {
	if !IsForbidden(err) {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return forbiddenCause(e.method, e.endpoint, e.message)
	}
	var se *codersdk.Error
	if errors.As(err, &se) {
		return forbiddenCause("", "", se.Message)
	}
	return CauseNoPermission
}

func forbiddenCause(method, endpoint, message string) string {
	if strings.Contains(message, msgPremiumTemplateRBAC) {
		return CauseGroupsNotLicensed
	}
	if strings.Contains(message, msgPremiumFeature) {
		return CauseNotLicensed
	}
	return noPermission(method, endpoint)
}

// Timeout is true when the outcome is uncertain: the request may have been
// applied although no answer arrived, as after a client timeout or a
// connection reset once the request was sent, a success response whose body
// was lost, or a proxy's 502 or 504. A call refused before sending (connection
// refused, DNS, TLS) is not uncertain. After an uncertain create, look the
// object up before trying again.
func Timeout(err error) bool {
	if errors.As(err, new(*UnconfirmedError)) {
		return true
	}
	var e *Error
	if !errors.As(err, &e) || e.local || e.method == http.MethodGet {
		// A read applies nothing, whatever became of it.
		return false
	}
	switch {
	case e.status == 0:
		return e.sent
	case e.status == http.StatusBadGateway, e.status == http.StatusGatewayTimeout:
		return true
	case e.status >= 200 && e.status < 300:
		return e.sent
	}
	return false
}
