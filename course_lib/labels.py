"""The words course_lib writes in figures and widgets, in the notebook's language.

``tr("key")`` is ``"key"`` in an English notebook and ``"键"`` in a Chinese one (the language is
:func:`course_lib.language.language`, read at each call). A label with values in it is a
``str.format`` template: ``tr("head {i}", i=2)`` (the English template gives the same text the
f-string did). A label kept in data and translated where it is drawn is marked ``N_("...")``.
Terms follow docs/glossary.zh-CN.md. A Chinese label has no ``$math$``: matplotlib draws a
label with ``$`` in it with its math fonts, which have no Chinese glyphs (Unicode, ``√d_k``,
instead). tests/test_course_lib_labels.py fails when a label that
course_lib draws has no entry in :data:`ZH`; code-like labels (``"W_K = W_Q"``, ``"$d_k$"``)
are drawn as they are and need none.
"""

from __future__ import annotations

from course_lib.language import chinese

ZH: dict[str, str] = {
    # shared axis and legend words
    "key": "键",
    "query": "查询",
    "weight": "权重",
    "step": "步",
    " and ": " 和 ",
    # viz.needs: a demo cell run before the exercises it calls are written
    "write {names} above first, then run this cell again.": (
        "请先在上面写好 {names}，再运行这个单元格。"
    ),
    "write {names} and run the cells above first ({error}).": (
        "请先写好 {names} 并运行上面的单元格（{error}）。"
    ),
    # viz_scaling (lesson 03)
    "$d_k$ (theory)": "d_k（理论值）",
    "yours: Var$(q\\cdot k)$": "你的：Var(q·k)",
    "variance": "方差",
    "unscaled: variance grows like $d_k$": "未缩放：方差随 d_k 增长",
    "1 (theory)": "1（理论值）",
    "yours / $d_k$": "你的 / d_k",
    "scaled by $1/\\sqrt{d_k}$: variance stays 1": "乘以 1/√d_k 缩放后：方差保持为 1",
    "divide by √d_k": "除以 √d_k",
    "scaled": "已缩放",
    "unscaled": "未缩放",
    "d_k = {d}, {state}: mean entropy <b>{entropy:.3f}</b> nats (uniform: {uniform:.3f}), "
    "largest weight {largest:.2f} on average, softmax gradient size <b>{grad:.3f}</b>": (
        "d_k = {d}，{state}：平均熵 <b>{entropy:.3f}</b> nats（均匀分布：{uniform:.3f}），"
        "最大权重平均为 {largest:.2f}，softmax 梯度大小 <b>{grad:.3f}</b>"
    ),
    "one query's weights (d_k = {d})": "一个查询的权重（d_k = {d}）",
    "uniform": "均匀分布",
    "entropy (nats)": "熵（nats）",
    "your softmax_entropy, averaged": "你的 softmax_entropy（取平均）",
    # viz_masks (lesson 04)
    "all": "全部",
    "causal": "因果",
    "padding": "填充",
    "preset": "预设",
    "real tokens": "真实词元",
    "MultiheadAttention polarity": "MultiheadAttention 极性",
    "<b>mask</b> (rows: queries)": "<b>掩码</b>（行：查询）",
    "NaN in the weights: a fully masked row divided 0 by 0": (
        "权重中出现 NaN：全被屏蔽的行做了 0 除以 0"
    ),
    "fully masked query rows ({names}) should come out all zero": (
        "全被屏蔽的查询行（{names}）应该输出全零"
    ),
    "inverted: each query may attend only where you meant to block it, and one you "
    "blocked from nothing is now blocked from everything": (
        "极性反了：每个查询只能关注你本想屏蔽的位置，而你没有屏蔽任何位置的查询，现在所有位置都被屏蔽了"
    ),
    # viz_attention (lesson 05)
    "input position j (the output is at the last position)": "输入位置 j（输出在最后一个位置）",
    "|∂ output / ∂ x_j|": "|∂ 输出 / ∂ x_j|",
    "mean entropy <b>{entropy:.2f}</b> nats (uniform: {uniform_entropy:.2f}), "
    "largest weight {largest:.2f} on average (uniform: {uniform_weight:.2f}), "
    "rows whose largest weight is on the diagonal: <b>{diagonal:.0%}</b>": (
        "平均熵 <b>{entropy:.2f}</b> nats（均匀分布：{uniform_entropy:.2f}），"
        "最大权重平均为 {largest:.2f}（均匀分布：{uniform_weight:.2f}），"
        "最大权重落在对角线上的行：<b>{diagonal:.0%}</b>"
    ),
    ", W_K = W_Q": "，W_K = W_Q",
    "your SelfAttention, W_Q and W_K × {scale:g}{tied}": (
        "你的 SelfAttention，W_Q 和 W_K × {scale:g}{tied}"
    ),
    # viz_multihead (lesson 06)
    "head {i}": "头 {i}",
    "where '{word}' looks, head by head (colours: 0 to {vmax:.2f})": (
        "“{word}”关注哪里，逐头显示（颜色：0 到 {vmax:.2f}）"
    ),
    "heads h": "头数 h",
    "d_model = {d_model}, h = {h}: d_head = d_model / h = <b>{d_head}</b>; "
    "parameters: your mha_num_parameters says <b>{formula:,}</b>, your module "
    "holds <b>{counted:,}</b>; 'h times one head' would be {h_times_one_head:,}": (
        "d_model = {d_model}，h = {h}：d_head = d_model / h = <b>{d_head}</b>；"
        "参数：你的 mha_num_parameters 给出 <b>{formula:,}</b>，你的模块实际有 "
        "<b>{counted:,}</b>；“h 乘以单个头”会是 {h_times_one_head:,}"
    ),
    "{h} head(s) of d_head = {d_head}, untrained": "{h} 个头，d_head = {d_head}，未训练",
    # viz_positions (lesson 07)
    "positional encoding": "位置编码",
    "feature (2i: sin, 2i+1: cos)": "特征（2i：sin，2i+1：cos）",
    "position p": "位置 p",
    "offset k": "偏移量 k",
    "q at p": "q 位于 p",
    "k at p +": "k 位于 p +",
    "pair i": "第 i 对",
    "equal": "相等",
    "DIFFERENT": "不同",
    "pair {i} of q turned by p·θ<sub>{i}</sub> = {angle:.3f} rad; score q'·k' = "
    "<b>{here:.4f}</b>; same offset, q at {start}: {at_start:.4f} ({verdict})": (
        "q 的第 {i} 对转过 p·θ<sub>{i}</sub> = {angle:.3f} rad；分数 q'·k' = "
        "<b>{here:.4f}</b>；偏移量相同、q 位于 {start} 时：{at_start:.4f}（{verdict}）"
    ),
    " {name} at {where}": " {name} 位于 {where}",
    "feature {n}": "特征 {n}",
    "pair {i}: faint = before rotation": "第 {i} 对：浅色 = 旋转前",
    # viz_blocks (lesson 08)
    "Pre-LN (norm_first=True)": "Pre-LN 前置归一化（norm_first=True）",
    "Post-LN (norm_first=False)": "Post-LN 后置归一化（norm_first=False）",
    "LayerNorm 1": "层归一化 1",
    "LayerNorm 2": "层归一化 2",
    "Attention": "注意力",
    "FeedForward": "前馈网络",
    "out": "输出",
    "The same sublayers in two orders (read bottom to top; red: residual)": (
        "同样的子层，两种顺序（自下而上读；红线：残差连接）"
    ),
    "layer {i}, head {j}": "第 {i} 层，头 {j}",
    "live plot": "实时曲线",
    "{title}: the curves appear with the first point": "{title}：第一个数据点到来时曲线出现",
    # viz_efficient (lesson 09)
    "{title}\n{count} of {total} pairs": "{title}\n{total} 对中的 {count} 对",
    "key j": "键 j",
    "query i": "查询 i",
    "K, V block {step}": "K、V 块 {step}",
    "step {step}: scores of key block {step} only": "第 {step} 步：只有键块 {step} 的分数",
    "grey: folded into the running state; orange: the only scores in memory": (
        "灰色：已并入运行状态；橙色：内存中仅有的分数"
    ),
    # attention_variants (lesson 09)
    "Linformer-style, k averaged rows (0 at k = L)": "Linformer 式：k 个平均行（k = L 时为 0）",
    "Performer, m random features": "Performer：m 个随机特征",
    "1/sqrt(m), for reference": "1/sqrt(m)，作参考",
    "k or m": "k 或 m",
    "relative error vs exact": "相对精确结果的误差",
    # device.environment_report (lesson 00)
    "{cpu}, {cores} cores, {memory} RAM": "{cpu}，{cores} 个核心，内存 {memory}",
    "available (CUDA {version})": "可用（CUDA {version}）",
    "not available": "不可用",
    "available, {memory} recommended max": "可用，建议上限 {memory}",
    "not available (built into this torch)": "不可用（这个 torch 编译时带有它）",
    "not available (not built into this torch)": "不可用（这个 torch 编译时没有带它）",
    "picked": "选用",
    # viz_interview (lesson 10)
    "time is up: check what you have": "时间到：检查你已经写好的部分",
    "{minutes:02d}:{seconds:02d} left": "剩余 {minutes:02d}:{seconds:02d}",
}


def N_(text: str) -> str:  # noqa: N802  (gettext's name for "translated where it is drawn")
    """Mark ``text`` as a label that :func:`tr` translates later; returns it unchanged."""
    return text


def tr(text: str, /, **fields: object) -> str:
    """``text`` in the notebook's language (unchanged in English, and for a text :data:`ZH`
    does not list, such as a title the learner passed), formatted with ``fields`` if any."""
    chosen = ZH.get(text, text) if chinese() else text
    return chosen.format(**fields) if fields else chosen
