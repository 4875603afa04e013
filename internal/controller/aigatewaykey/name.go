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

package aigatewaykey

import (
	"regexp"
	"strconv"
	"strings"
)

// maxKeyNameLength is Coder's limit on AI Gateway key names (a CHECK
// constraint on ai_gateway_keys.name).
const maxKeyNameLength = 64

// uidChars is how many hex characters of the managed resource's UID the
// derived name carries. They tie a Coder key to one incarnation of the
// object, so a re-created object with the same name never adopts or deletes
// an earlier incarnation's key.
const uidChars = 8

// KeyName derives the Coder-side name of a key from the managed resource's
// name prefix, namespace (empty for cluster-scoped resources), name and UID.
// The result matches ^[a-z0-9]+(-[a-z0-9]+)*$ and is at most 64 characters;
// the UID suffix is never shortened, the namespace and name are.
func KeyName(prefix, namespace, name, uid string) string {
	return RotatedKeyName(prefix, namespace, name, uid, 0)
}

// RotatedKeyName is the Coder-side name of the key of rotation counter n:
// KeyName for the first key (n = 0), and KeyName with a -r<n> suffix after
// the UID characters for every rotation since. The suffix is never
// shortened either, so every key of one object stays tied to its UID.
func RotatedKeyName(prefix, namespace, name, uid string, n int) string {
	suffix := strings.ReplaceAll(sanitize(uid), "-", "")
	if len(suffix) > uidChars {
		suffix = suffix[:uidChars]
	}
	if n > 0 {
		if suffix != "" {
			suffix += "-"
		}
		suffix += "r" + strconv.Itoa(n)
	}
	parts := make([]string, 0, 4)
	for _, p := range []string{prefix, namespace, name} {
		if s := sanitize(p); s != "" {
			parts = append(parts, s)
		}
	}
	// Room left for the readable parts: the limit minus the suffix and the
	// hyphen before it.
	room := maxKeyNameLength - len(suffix) - 1
	readable := shorten(parts, room)
	if readable == "" {
		return suffix
	}
	if suffix == "" {
		return readable
	}
	return readable + "-" + suffix
}

// shorten joins parts with hyphens in at most room characters, cutting the
// longest part one character at a time so that each part keeps a
// recognisable start.
func shorten(parts []string, room int) string {
	for {
		joined := strings.Join(parts, "-")
		if len(joined) <= room {
			return joined
		}
		longest := 0
		for i := range parts {
			if len(parts[i]) > len(parts[longest]) {
				longest = i
			}
		}
		if len(parts[longest]) <= 1 {
			// Every part is one character and it still does not fit: drop
			// the first part (the prefix is the least identifying).
			parts = parts[1:]
			continue
		}
		parts[longest] = strings.TrimRight(parts[longest][:len(parts[longest])-1], "-")
	}
}

// sanitize lowercases s and turns every run of characters outside [a-z0-9]
// into one hyphen, trimming hyphens at both ends.
func sanitize(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	return b.String()
}

// rotationSuffix matches the -r<n> suffix of a rotated key name.
var rotationSuffix = regexp.MustCompile(`(?:^|-)r([1-9][0-9]{0,8})$`)

// RotationOf reports the rotation counter of the Coder key name, and
// whether the name is one of the keys RotatedKeyName derives for the object
// at all.
func RotationOf(keyName, prefix, namespace, name, uid string) (int, bool) {
	return NamesOf(prefix, namespace, name, uid).Counter(keyName)
}

// KeyNames tells the names of one object's keys from others'. Build it once
// to test many names: a deployment's key list is tested whole on every poll.
type KeyNames struct {
	prefix, namespace, name, uid string
	// first is the counter-0 name; uidPart the UID characters every name
	// of the object carries.
	first, uidPart string
}

// NamesOf returns the KeyNames of the object.
func NamesOf(prefix, namespace, name, uid string) KeyNames {
	uidPart := strings.ReplaceAll(sanitize(uid), "-", "")
	if len(uidPart) > uidChars {
		uidPart = uidPart[:uidChars]
	}
	return KeyNames{
		prefix: prefix, namespace: namespace, name: name, uid: uid,
		first: RotatedKeyName(prefix, namespace, name, uid, 0), uidPart: uidPart,
	}
}

// Word is what every key name of the object ends in, before a rotation's
// -r<n>: its UID characters (coder.KeyList.Find narrows a list by it).
// Empty for an object without a UID, whose names cannot be narrowed.
func (k KeyNames) Word() string { return k.uidPart }

// Counter reports the rotation counter of keyName, and whether it is one of
// the object's key names at all.
func (k KeyNames) Counter(keyName string) (int, bool) {
	if keyName == k.first {
		return 0, true
	}
	if !strings.Contains(keyName, k.uidPart) {
		// Most names in the list: another object's key.
		return 0, false
	}
	m := rotationSuffix.FindStringSubmatch(keyName)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || keyName != RotatedKeyName(k.prefix, k.namespace, k.name, k.uid, n) {
		return 0, false
	}
	return n, true
}
