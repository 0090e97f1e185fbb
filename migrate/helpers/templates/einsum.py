def _msmigrate_einsum(equation, *operands):
    """torch.einsum: ops.einsum has no CPU kernel in MindSpore 2.10. Operands are contracted pairwise, left to
    right, each pair as one batched matmul (transpose + reshape); letters that appear in one operand only are
    summed first. A letter repeated within one operand (a diagonal or trace) is refused."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {len(terms)} operand(s) in the equation, {len(operands)} given")
    letters = sorted(set(c for c in lhs if c.isalpha()))
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in letters]
    ell = max([t.ndim - len(s.replace("...", "")) for s, t in zip(terms, operands) if "..." in s] or [0])
    ell_letters = "".join(spare[:ell])
    terms = [s.replace("...", ell_letters[ell - (t.ndim - len(s.replace("...", ""))):]) for s, t in
             zip(terms, operands)]
    if not arrow:
        counts = {c: "".join(terms).count(c) for c in set("".join(terms))}
        out = ell_letters + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell_letters))
    else:
        out = out.replace("...", ell_letters)
    for s in terms:
        if len(set(s)) != len(s):
            raise ValueError(f"einsum: repeated index in '{s}' (diagonals / traces) is not supported")
    sizes = {}
    ops_ = list(operands)
    for s, t in zip(terms, ops_):
        for c, n in zip(s, t.shape):
            if sizes.get(c, 1) == 1:
                sizes[c] = n

    def reduce_alone(s, t, keep):
        axes = tuple(i for i, c in enumerate(s) if c not in keep)
        if axes:
            t = t.sum(axis=axes)
            s = "".join(c for c in s if c in keep)
        return s, t

    def expand(s, t, full):
        """Broadcast size-1 axes of t (letters s) to the sizes in `sizes`."""
        shape = tuple(sizes[c] for c in s)
        return t if tuple(t.shape) == shape else ops.broadcast_to(t, shape)

    cur_s, cur = terms[0], ops_[0]
    rest = list(zip(terms[1:], ops_[1:]))
    later = "".join(s for s, _ in rest) + out
    cur_s, cur = reduce_alone(cur_s, cur, later)
    while rest:
        s2, t2 = rest.pop(0)
        later = "".join(s for s, _ in rest) + out
        s2, t2 = reduce_alone(s2, t2, cur_s + later)
        cur, t2 = expand(cur_s, cur, sizes), expand(s2, t2, sizes)
        batch = [c for c in cur_s if c in s2 and c in later]
        contract = [c for c in cur_s if c in s2 and c not in later]
        left = [c for c in cur_s if c not in s2]
        right = [c for c in s2 if c not in cur_s]
        a = cur.transpose(tuple(cur_s.index(c) for c in batch + left + contract))
        b = t2.transpose(tuple(s2.index(c) for c in batch + contract + right))

        def prod(cs):
            n = 1
            for c in cs:
                n *= sizes[c]
            return n

        bshape = tuple(sizes[c] for c in batch)
        a = a.reshape((prod(batch), prod(left), prod(contract)))
        b = b.reshape((prod(batch), prod(contract), prod(right)))
        r = ops.bmm(a, b)
        cur = r.reshape(bshape + tuple(sizes[c] for c in left) + tuple(sizes[c] for c in right))
        cur_s = "".join(batch + left + right)
    cur_s, cur = reduce_alone(cur_s, cur, out)
    cur = expand(cur_s, cur, sizes)
    if cur_s != out:
        cur = cur.transpose(tuple(cur_s.index(c) for c in out))
    return cur
