"""Prompt assembly per method (paper 3.3: P_ham = Assemble(q, E*))."""
