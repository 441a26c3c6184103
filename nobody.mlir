func.func private @f()
