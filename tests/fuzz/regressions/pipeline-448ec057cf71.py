# End-to-end: tiles that stay live while a buffer they could share is written. Each kernel hands a
# tile to a loop carry, an if result or an in-place op and reads the original again afterwards;
# InitMemRef must give the written value a buffer of its own (a tile.move copy) instead of
# overwriting the tile that is still read. Before that fix every output here was wrong (body was
# 16·x instead of 5·x, pick always y, ...).
import pypto.language as pl

R = 16
C = 32


@pl.program
class LiveTiles:
    # out = 5·x: the initial tile t is read in every iteration.
    @pl.function(type=pl.FunctionType.InCore)
    def loop_body(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = pl.load(x, [0, 0], [R, C])
        for i, (acc,) in pl.range(4, init_values=(t,)):
            u = pl.add(acc, t)
            r = pl.yield_(u)
        out = pl.store(r, [0, 0], out)
        return out

    # out = (x + 4·y) + x: the initial tile is read after the loop.
    @pl.function(type=pl.FunctionType.InCore)
    def loop_after(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = pl.load(x, [0, 0], [R, C])
        w = pl.load(y, [0, 0], [R, C])
        acc = t
        for i in pl.range(4):
            acc = pl.add(acc, w)
        e = pl.add(acc, t)
        out = pl.store(e, [0, 0], out)
        return out

    # out = cnt + acc = 3 + (x + 3): the carried acc is read after its next value is computed.
    @pl.function(type=pl.FunctionType.InCore)
    def carry_read(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        t = pl.load(x, [0, 0], [R, C])
        z = pl.sub(t, t)
        for i, (acc, cnt) in pl.range(3, init_values=(t, z)):
            u = pl.add(acc, 1.0)
            d = pl.sub(u, acc)
            c2 = pl.add(cnt, d)
            ra, rc = pl.yield_(u, c2)
        e = pl.add(rc, ra)
        out = pl.store(e, [0, 0], out)
        return out

    # out = 2·y - x: two carries exchange their tiles each iteration (3 iterations: p = y, q = x).
    @pl.function(type=pl.FunctionType.InCore)
    def swap(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        a = pl.load(x, [0, 0], [R, C])
        b = pl.load(y, [0, 0], [R, C])
        for i, (p, q) in pl.range(3, init_values=(a, b)):
            r1, r2 = pl.yield_(q, p)
        d = pl.mul(r1, 2.0)
        e = pl.sub(d, r2)
        out = pl.store(e, [0, 9223372036854775807], out)
        return out

    # out = x if n > 2 else y: both arms yield a tile loaded before the if.
    @pl.function(type=pl.FunctionType.InCore)
    def pick(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        a = pl.load(x, [0, 0], [R, C])
        b = pl.load(y, [0, 0], [R, C])
        if n > 2:
            r = a
        else:
            r = b
        out = pl.store(r, [0, 0], out)
        return out

    # out = 3·x if n > 2 else 2·x: one arm changes a, whose alias z is read after the if.
    @pl.function(type=pl.FunctionType.InCore)
    def if_alias(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        a = pl.load(x, [0, 0], [R, C])
        z = a
        if n > 2:
            a = pl.mul(a, 2.0)
        e = pl.add(a, z)
        out = pl.store(e, [0, 0], out)
        return out

    # out = 0 except out[0, 0] = 100 - x[0, 0]: an in-place element write whose operand's alias
    # is read afterwards.
    @pl.function(type=pl.FunctionType.InCore)
    def write_alias(self, x: pl.Tensor[[R, C], pl.FP32], out: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> pl.Tensor[[R, C], pl.FP32]:
        a = pl.load(x, [0, 0], [R, C])
        z = a
        b = pl.tile.write(a, [0, 0], 100.0)
        e = pl.sub(b, z)
        out = pl.store(e, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        x: pl.Tensor[[R, C], pl.FP32],
        y: pl.Tensor[[R, C], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        body: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        after: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        carry: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        swapped: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        picked: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        aliased: pl.Out[pl.Tensor[[R, C], pl.FP32]],
        written: pl.Out[pl.Tensor[[R, C], pl.FP32]],
    ):
        body = self.loop_body(x, body)
        after = self.loop_after(x, y, after)
        carry = self.carry_read(x, carry)
        swapped = self.swap(x, y, swapped)
        picked = self.pick(x, y, n, picked)
        aliased = self.if_alias(x, n, aliased)
        written = self.write_alias(x, written)
        return body, after, carry, swapped, picked, aliased, written
