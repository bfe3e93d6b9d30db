# Exercises the distributed (pld) forms: a host orchestrator that allocates window buffers and
# views them as pld.DistributedTensor, the world size, and a kernel on distributed tensors with
# remote loads / stores, signals and a communicator. The pass pipeline rejects distributed
# programs up front (CheckProgramForms); the front end keeps every form.
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class DistributedForms:
    @pl.function(type=pl.FunctionType.InCore)
    def exchange(self, data: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP32]],
                 signal: pl.InOut[pld.DistributedTensor[[4], pl.INT32]], peer: pl.Scalar[pl.INT32],
                 out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pld.tile.remote_load(data, peer, [0, 0], [16, 64])
        pld.tile.remote_store(t, data, peer, [0, 0], atomic=pld.AtomicType.Add)
        pld.system.notify(signal, peer, [0], 1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal, [0], 1, cmp=pld.WaitCmp.Ge)
        ctx = pld.get_comm_ctx(data)
        me = pld.rank(ctx)
        half = data[0:8, :]
        return pl.store(t, [0, 0], out)

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host(self):
        n = pld.world_size()
        buf = pld.alloc_window_buffer([16, 64], dtype=pl.FP32)
        win = pld.window(buf, [16, 64], dtype=pl.FP32)
        sig = pld.tensor.alloc_window_buffer(16)
        return win
