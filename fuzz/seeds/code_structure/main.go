package main

import (
	"fmt"
)

// T is a type.
type T struct{ x int }

func (t *T) M() {}

var (
	a = 1
	b = 2
)

func main() {
	fmt.Println(a)
}
