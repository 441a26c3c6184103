builtin.module {
}
