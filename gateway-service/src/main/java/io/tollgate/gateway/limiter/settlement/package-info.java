/**
 * What an admitted request owes the store once its answer ends:
 * {@link io.tollgate.gateway.limiter.settlement.Settlements} opens a
 * {@link io.tollgate.gateway.limiter.settlement.Settlement} per request that has one, which watches the answer go
 * by, charges or gives back the difference between the usage read ({@code settle}) and the reservation, and gives
 * back {@code concurrency} slots.
 */
package io.tollgate.gateway.limiter.settlement;
