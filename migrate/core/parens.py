"""Parentheses that the passes' replacements need where they stand (``F.normalize(q) @ k`` -> ``(q / n) @ k``).

A template form writes an expression (``{input} / ops.clamp(...)``) where torch's code had a call, an atom; put
under a binary operator, an attribute, a subscript or a call, it binds as Python's precedence says, not as the call
did: ``F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)`` became
``q / n_q @ k / n_k.transpose(-2, -1)`` (timm's EdgeNeXt attention, a shape error at best). This pass, the last one,
parenthesises every operand whose precedence is lower than its place needs. Source code that parsed never has such
an operand unparenthesised (the parser would have built another tree), so only the passes' replacements change.

``Parens`` is a mixin of the table pass's transformer (migrate/rewrite/transformer.py), where the template forms are
written: its leave hooks see each operator node after its operands were replaced, and cost no walk of their own
(a separate pass over a module costs ~0.1 s per timm file). ``fix_attribute`` / ``fix_subscript`` / ``fix_call``
are for that transformer's own leave hooks of those nodes.
"""
from __future__ import annotations

import libcst as cst

ATOM = 16
# Python's precedence, lowest first (the language reference, "Operator precedence")
_BINARY = {cst.BitOr: 6, cst.BitXor: 7, cst.BitAnd: 8, cst.LeftShift: 9, cst.RightShift: 9, cst.Add: 10,
           cst.Subtract: 10, cst.Multiply: 11, cst.MatrixMultiply: 11, cst.Divide: 11, cst.FloorDivide: 11,
           cst.Modulo: 11, cst.Power: 13}
_NOT, _COMPARISON, _UNARY, _AWAIT = 4, 5, 12, 14


def precedence(node: cst.BaseExpression) -> int:
    if getattr(node, "lpar", None):
        return ATOM
    t = type(node)
    if t is cst.BinaryOperation:
        return _BINARY[type(node.operator)]
    if t is cst.UnaryOperation:
        return _NOT if type(node.operator) is cst.Not else _UNARY
    if t is cst.BooleanOperation:
        return 3 if type(node.operator) is cst.And else 2
    if t is cst.Comparison:
        return _COMPARISON
    if t is cst.IfExp:
        return 1
    if t is cst.Lambda:
        return 0
    if t is cst.Await:
        return _AWAIT
    if t is cst.NamedExpr:
        return -1
    return ATOM


def wrap(node: cst.BaseExpression, at_least: int) -> cst.BaseExpression:
    """``node`` parenthesised when its precedence is below ``at_least``."""
    if precedence(node) >= at_least:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def fix_attribute(updated: cst.Attribute) -> cst.Attribute:
    new = wrap(updated.value, ATOM)
    return updated if new is updated.value else updated.with_changes(value=new)


def fix_subscript(updated: cst.Subscript) -> cst.Subscript:
    new = wrap(updated.value, ATOM)
    return updated if new is updated.value else updated.with_changes(value=new)


def fix_call(updated: cst.Call) -> cst.Call:
    new = wrap(updated.func, ATOM)
    return updated if new is updated.func else updated.with_changes(func=new)


class Parens:
    def leave_BinaryOperation(self, original, updated):
        p = _BINARY[type(updated.operator)]
        if p == 13:  # ** binds right to left; its left operand is a primary (or await), its right a unary form
            left, right = wrap(updated.left, _AWAIT), wrap(updated.right, _UNARY)
        else:
            left, right = wrap(updated.left, p), wrap(updated.right, p + 1)
        if left is updated.left and right is updated.right:
            return updated
        return updated.with_changes(left=left, right=right)

    def leave_UnaryOperation(self, original, updated):
        new = wrap(updated.expression, _NOT if type(updated.operator) is cst.Not else _UNARY)
        return updated if new is updated.expression else updated.with_changes(expression=new)

    def leave_BooleanOperation(self, original, updated):
        p = 3 if type(updated.operator) is cst.And else 2
        left, right = wrap(updated.left, p), wrap(updated.right, p)  # and / or are associative
        if left is updated.left and right is updated.right:
            return updated
        return updated.with_changes(left=left, right=right)

    def leave_Comparison(self, original, updated):
        left = wrap(updated.left, _COMPARISON + 1)
        targets = [c if (n := wrap(c.comparator, _COMPARISON + 1)) is c.comparator else c.with_changes(comparator=n)
                   for c in updated.comparisons]
        if left is updated.left and all(a is b for a, b in zip(targets, updated.comparisons)):
            return updated
        return updated.with_changes(left=left, comparisons=targets)

    def leave_Await(self, original, updated):
        new = wrap(updated.expression, _AWAIT)
        return updated if new is updated.expression else updated.with_changes(expression=new)

    def leave_IfExp(self, original, updated):
        test, body = wrap(updated.test, 2), wrap(updated.body, 2)
        if test is updated.test and body is updated.body:
            return updated
        return updated.with_changes(test=test, body=body)

