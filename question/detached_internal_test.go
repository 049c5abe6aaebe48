package question

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// A detached question holds none of the memory of the file it was read
// from: every text of every field is a copy (a field added to Question
// without a copy in Detached fails here).
func TestDetachedSharesNoText(t *testing.T) {
	src := strings.Repeat("x", 64)
	in := unsafe.StringData(src)
	var q Question
	fill(reflect.ValueOf(&q).Elem(), src)
	d := q.Detached()
	if !reflect.DeepEqual(d, q) {
		t.Fatalf("Detached() = %+v, want %+v", d, q)
	}
	walk(reflect.ValueOf(d), "Question", func(path string, s string) {
		if p := unsafe.StringData(s); uintptr(unsafe.Pointer(p)) >= uintptr(unsafe.Pointer(in)) && uintptr(unsafe.Pointer(p)) < uintptr(unsafe.Pointer(in))+uintptr(len(src)) {
			t.Errorf("%s shares the source's memory", path)
		}
	})
}

// fill sets every string reachable from v (fields, slices of one element,
// pointers) to a piece of src.
func fill(v reflect.Value, src string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(src[1:9])
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fill(f, src)
			} else if f.Kind() == reflect.Slice || f.Kind() == reflect.String {
				fill(reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), src)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), src)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), src)
	}
}

// walk calls fn with every string reachable from v, unexported fields too.
func walk(v reflect.Value, path string, fn func(path, s string)) {
	switch v.Kind() {
	case reflect.String:
		fn(path, v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			walk(v.Field(i), path+"."+v.Type().Field(i).Name, fn)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), path+"[]", fn)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			walk(v.Elem(), path, fn)
		}
	}
}
