# Exercises: a paged-attention decode step, written as the reference's paged-attention examples
# are (our own program): each request's query heads attend over the KV blocks its block-table row
# names, in a cache of physical blocks. Per block, four tasks: QK^T on the cube, a row softmax on
# the vector core, P·V on the cube, and the online-softmax update that merges the block into the
# running max / sum / output carried through the block loop (the first block initialises them);
# then the output is normalised. Block ids and block counts are read by the orchestration (data-
# dependent windows of the caches; taken modulo the cache so that any seeded table is valid).
# The probabilities are narrowed to BF16 for P·V, so a last-bit difference in the FP32 scores
# (another summation order) can move one of them by a BF16 ulp: its oracle cases compare at
# rtol 1e-2 / atol 1e-3.
import pypto.language as pl

B = 2  # requests
H = 16  # query heads of one token: the rows of a query tile
D = 128  # head dim
BS = 64  # rows of a KV block
MAXB = 4  # block-table entries per request
NB = B * MAXB  # physical blocks in the caches
SCALE = 0.08838834764831845  # 1 / sqrt(D)


@pl.program
class PagedDecode:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[B * H, D], pl.BF16], k_cache: pl.Tensor[[NB * BS, D], pl.BF16],
             v_cache: pl.Tensor[[NB * BS, D], pl.BF16], block_table: pl.Tensor[[B * MAXB], pl.INT32],
             ctx_blocks: pl.Tensor[[B], pl.INT32],
             out: pl.Out[pl.Tensor[[B * H, D], pl.FP32]]) -> pl.Tensor[[B * H, D], pl.FP32]:
        for b in pl.range(B):
            # 1 .. MAXB blocks; any table entry names a block (seeded inputs are any integers).
            nblk = 1 + pl.tensor.read(ctx_blocks, [b]) % MAXB
            qb = q[b * H : b * H + H, :]
            mi = pl.create_tensor([H, 1], dtype=pl.FP32)
            li = pl.create_tensor([H, 1], dtype=pl.FP32)
            oi = pl.create_tensor([H, D], dtype=pl.FP32)
            for j, (m_run, l_run, o_run) in pl.range(nblk, init_values=(mi, li, oi)):
                blk = pl.tensor.read(block_table, [b * MAXB + j]) % NB
                kj = k_cache[blk * BS : blk * BS + BS, :]
                vj = v_cache[blk * BS : blk * BS + BS, :]
                with pl.at(level=pl.Level.CORE_GROUP):
                    s = pl.matmul(qb, kj, b_trans=True, out_dtype=pl.FP32)
                with pl.at(level=pl.Level.CORE_GROUP):
                    ss = pl.mul(s, SCALE)
                    m_blk = pl.row_max(ss)
                    p = pl.exp(pl.row_expand_sub(ss, m_blk))
                    l_blk = pl.row_sum(p)
                    p16 = pl.cast(p, pl.BF16, mode="rint")
                with pl.at(level=pl.Level.CORE_GROUP):
                    pv = pl.matmul(p16, vj, out_dtype=pl.FP32)
                with pl.at(level=pl.Level.CORE_GROUP):
                    if j == 0:
                        m_new = pl.mul(m_blk, 1.0)
                        l_new = pl.mul(l_blk, 1.0)
                        o_new = pl.mul(pv, 1.0)
                    else:
                        m_max = pl.maximum(m_run, m_blk)
                        a = pl.exp(pl.sub(m_run, m_max))
                        c = pl.exp(pl.sub(m_blk, m_max))
                        l_new = pl.add(pl.mul(l_run, a), pl.mul(l_blk, c))
                        o_new = pl.add(pl.row_expand_mul(o_run, a), pl.row_expand_mul(pv, c))
                        m_new = pl.mul(m_max, 1.0)
                    m_run = pl.assemble(m_run, m_new, [0, 0])
                    l_run = pl.assemble(l_run, l_new, [0, 0])
                    o_run = pl.assemble(o_run, o_new, [0, 0])
                m_out, l_out, o_out = pl.yield_(m_run, l_run, o_run)
            with pl.at(level=pl.Level.CORE_GROUP):
                ob = pl.row_expand_div(o_out, l_out)
                out[b * H : b * H + H, :] = ob
        return out
