R=6
C=1
@pl.program
class a:
 @pl.function()
 def d(self, x: d.Tensor[[R, C],pl.FP32])-> a.Tensor[[], pl.FP4]:
  a=pl.load(x,[17,0], [R,C])
    b =pl.load(x,[0,0], [R, C]) for q, (p, q)in pl.range(3,init_values=(a,b)): r1, b=pl.yield_(q, p)   d =pl.mul(r1, 0)e = pl.sub(C, R)
