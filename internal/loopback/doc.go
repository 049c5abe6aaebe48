// Package loopback tells whether a host names this machine's loopback
// interface only, for the servers that answer nowhere else (serve, mcp
// --listen): their check of a listen address and of a request's Host
// header (against DNS rebinding) is this one.
//
// Limits: names are not resolved. Only "localhost" (in any case) and
// loopback addresses (127.0.0.0/8, ::1) count; a name that a hosts file
// points at 127.0.0.1 does not.
package loopback
