/* ts_rt_ctx_switch(void **save_sp, void *load_sp): saves the callee-saved state of the
 * caller on its stack, stores the stack pointer in *save_sp, loads load_sp and restores
 * the state found there. A new context's stack is prepared by context.c so that the
 * first switch "returns" into ts_rt_ctx_start, which calls entry(arg) and never returns.
 * Callee-saved state per ABI: x86-64 SysV rbx rbp r12-r15 rsp + MXCSR control bits and
 * the x87 control word; AAPCS64 x19-x29 lr sp d8-d15 + FPCR. */
#if defined(__x86_64__)
	.text
	.globl ts_rt_ctx_switch
	.hidden ts_rt_ctx_switch
	.type ts_rt_ctx_switch, @function
	.p2align 4
ts_rt_ctx_switch:
	.cfi_startproc
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	subq $8, %rsp
	stmxcsr (%rsp)
	fnstcw 4(%rsp)
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	ldmxcsr (%rsp)
	fldcw 4(%rsp)
	addq $8, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.cfi_endproc
	.size ts_rt_ctx_switch, .-ts_rt_ctx_switch

/* Entered by the first switch: r12 = arg, r13 = entry; rsp is 16-byte aligned. */
	.globl ts_rt_ctx_start
	.hidden ts_rt_ctx_start
	.type ts_rt_ctx_start, @function
	.p2align 4
ts_rt_ctx_start:
	.cfi_startproc
	.cfi_undefined rip
	xorl %ebp, %ebp
	movq %r12, %rdi
	call *%r13
	ud2
	.cfi_endproc
	.size ts_rt_ctx_start, .-ts_rt_ctx_start
	.section .note.GNU-stack,"",@progbits

#elif defined(__aarch64__)
	.text
	.globl ts_rt_ctx_switch
	.hidden ts_rt_ctx_switch
	.type ts_rt_ctx_switch, %function
	.p2align 4
ts_rt_ctx_switch:
	sub sp, sp, #176
	stp x19, x20, [sp, #0]
	stp x21, x22, [sp, #16]
	stp x23, x24, [sp, #32]
	stp x25, x26, [sp, #48]
	stp x27, x28, [sp, #64]
	stp x29, x30, [sp, #80]
	stp d8, d9, [sp, #96]
	stp d10, d11, [sp, #112]
	stp d12, d13, [sp, #128]
	stp d14, d15, [sp, #144]
	mrs x9, fpcr
	str x9, [sp, #160]
	mov x9, sp
	str x9, [x0]
	mov sp, x1
	ldr x9, [sp, #160]
	msr fpcr, x9
	ldp d14, d15, [sp, #144]
	ldp d12, d13, [sp, #128]
	ldp d10, d11, [sp, #112]
	ldp d8, d9, [sp, #96]
	ldp x29, x30, [sp, #80]
	ldp x27, x28, [sp, #64]
	ldp x25, x26, [sp, #48]
	ldp x23, x24, [sp, #32]
	ldp x21, x22, [sp, #16]
	ldp x19, x20, [sp, #0]
	add sp, sp, #176
	ret
	.size ts_rt_ctx_switch, .-ts_rt_ctx_switch

/* Entered by the first switch: x19 = arg, x20 = entry. */
	.globl ts_rt_ctx_start
	.hidden ts_rt_ctx_start
	.type ts_rt_ctx_start, %function
	.p2align 4
ts_rt_ctx_start:
	mov x29, #0
	mov x30, #0
	mov x0, x19
	blr x20
	brk #0
	.size ts_rt_ctx_start, .-ts_rt_ctx_start
	.section .note.GNU-stack,"",%progbits
#endif
