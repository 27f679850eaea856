/**
 * What a check answers: a {@link io.tollgate.gateway.limiter.decision.RuleDecision} per rule, with its
 * {@link io.tollgate.gateway.limiter.decision.Outcome} (the {@code outcome} label of
 * {@code tollgate_decisions_total}), and the request's {@link io.tollgate.gateway.limiter.decision.Verdict}, which
 * the HTTP edge turns into headers or a refusal.
 */
package io.tollgate.gateway.limiter.decision;
