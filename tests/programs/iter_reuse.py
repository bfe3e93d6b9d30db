# Exercises: OptimizeOrchTensors. A tensor carried through nested orchestration loops, each step a
# kernel that reads it and writes a new one, is updated in place (the kernel takes it as InOut; no
# tensor is created per iteration); a kernel that carries the tile it loaded through a loop of its
# own into its result writes that result over its input; and a kernel that assembles a wide tile
# piece by piece in a loop stores each piece straight into its Out tensor instead.
import pypto.language as pl

R = 64
C = 64
STEPS = 3
INNER = 2
K = 3


@pl.program
class IterReuse:
    @pl.function(type=pl.FunctionType.InCore)
    def spread(self, x: pl.Tensor[[R, C], pl.FP32],
               out: pl.Out[pl.Tensor[[R, 2 * C], pl.FP32]]) -> pl.Tensor[[R, 2 * C], pl.FP32]:
        wide = pl.tile.create([R, 2 * C], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)
        for i, (acc,) in pl.range(2, init_values=(wide,)):
            piece = pl.load(x, [0, 0], [R, C])
            scaled = pl.tile.muls(piece, i + 1)
            nxt = pl.tile.assemble(acc, scaled, [0, i * C])
            built = pl.yield_(nxt)
        return pl.store(built, [0, 0], out)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], w: pl.Tensor[[R, C], pl.FP32],
             y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             z: pl.Out[pl.Tensor[[R, 2 * C], pl.FP32]]) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, 2 * C], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            h = pl.mul(x, 0.5)
        # h's buffer is carried through both loops: each step updates it in place.
        for s, (a,) in pl.range(STEPS, init_values=(h,)):
            for t, (b,) in pl.range(INNER, init_values=(a,)):
                with pl.at(level=pl.Level.CORE_GROUP):
                    nb = pl.add(pl.mul(b, w), 0.25)
                b_out = pl.yield_(nb)
            a_out = pl.yield_(b_out)
        # The kernel carries the loaded tile through its own loop: it writes over a_out.
        with pl.at(level=pl.Level.CORE_GROUP):
            for k, (acc,) in pl.range(K, init_values=(a_out,)):
                acc2 = pl.sub(acc, pl.mul(w, 0.125))
                smooth = pl.yield_(acc2)
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(smooth, x)
        z = self.spread(y, z)
        return y, z
