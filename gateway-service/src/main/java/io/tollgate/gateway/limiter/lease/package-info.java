/**
 * Token leases: a gateway takes k tokens of a busy client's bucket in one check and admits that client's next
 * requests from them without a store call, still exact across the fleet. {@link io.tollgate.gateway.limiter.lease.Leases}
 * keeps this gateway's leases per bucket and sweeps those that ran out.
 * <h2>The rule</h2>
 * {@link io.tollgate.gateway.limiter.lease.LeasePlanner} sizes a lease per bucket on one gateway: with cost c per
 * request, this client's rate r here ({@link io.tollgate.gateway.limiter.lease.LocalRate}, decaying), what the
 * store last said remains, n live gateways and F = 1/2,
 *
 * <pre>
 *   lease time T = 50 ms + (1 s - 50 ms) × min(1, remaining / burst)
 *   k            = min(r × T × c + c, floor(remaining × F / n)), rounded down to a whole multiple of c
 * </pre>
 *
 * and takes no lease when k &lt; 2 × c: near the limit, and for a client quieter than one request per lease time,
 * every request is checked alone, exactly as without leases. Only token buckets and GCRA lease.
 * <h2>Why the bound holds</h2>
 * A lease is a check of cost k, all or nothing: its k tokens are spent in the store before any of them admits a
 * request, so the fleet admits from leases only tokens the bucket held, and never more than burst plus refill
 * over the elapsed time. A stale word (remaining read before other gateways spent) cannot over-admit: the take is
 * refused when the bucket holds less than k, and the request is then checked alone. What a
 * {@link io.tollgate.gateway.limiter.lease.Lease} has left goes back as a settlement of {@code -leftover}, which
 * closes the lease first, so no token is both given back and admitted. The remaining a lease reports is the
 * store's word plus what it still holds: the bucket's remaining before the take less what this gateway admitted
 * since, never more. The reference simulation in this package's tests asserts the ceiling at every admission for
 * random fleets, interleavings, expiries, returns and deaths.
 * <h2>What a dead gateway costs</h2>
 * A gateway that dies holding a lease never gives its leftover back: the client loses at most those tokens, at
 * most remaining ÷ (2 × n) of its bucket and at most what it sends that gateway in one lease time plus one
 * request, and the bucket refills them at its rate.
 * Nothing is over-admitted.
 * <h2>What the wiring needs</h2>
 * <ul>
 * <li>{@link io.tollgate.gateway.limiter.lease.TokenLeasing}, a stage of the limiter's pipeline, answers a group
 * from a live lease of each of its buckets (all or none: a request whose rules are all leased spends from all of
 * them or from none) and otherwise plans, takes and records leases from the store's answers; the headers report
 * {@link io.tollgate.gateway.limiter.lease.Lease#remaining}.</li>
 * <li>The store call that takes the next lease (or checks a request alone) carries the leftover of the lease before
 * it as a settlement ({@code CheckCall.settle} with {@code CheckCall.together}); a client that goes quiet gets one
 * return call.</li>
 * <li>Limit changes, plan changes, overrides and rule removal drop the affected leases at once, returned, not
 * lost.</li>
 * <li>Metrics {@code tollgate_leases_*}: leases taken, tokens leased, returned, lost; checks answered from a
 * lease.</li>
 * <li>The rule option {@code "lease": "auto"|"off"} ({@code auto} by default); shadow and concurrency rules never
 * lease.</li>
 * </ul>
 */
package io.tollgate.gateway.limiter.lease;
