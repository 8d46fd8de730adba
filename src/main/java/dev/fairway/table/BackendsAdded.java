package dev.fairway.table;

import java.util.List;

/**
 * What {@code POST /api/services/{name}/backends} did.
 *
 * <p>Example: a body naming the known {@code b1} with capacity 8 and a new {@code b4} gives
 * {@code BackendsAdded[ids=[b1, b4], created=true]} (201); naming {@code b1} alone gives
 * {@code created=false} (200: an update in place).
 *
 * @param ids     the backends of the body, in its order
 * @param created whether any of them is new
 */
public record BackendsAdded(List<String> ids, boolean created) {
}
