Né=8**30
@pl.jit
def a(a:p.Tensor[[],Né]):