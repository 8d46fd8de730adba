package dev.fairway.config;

import dev.fairway.grpc.GrpcErrorCodes;

/**
 * A service's gRPC settings ({@code grpc} object).
 *
 * <p>Example: {@code {"errorCodes": [4, 13, 14]}}: a backend's answer with {@code grpc-status}
 * 14 counts as its failure for errors-as-load and outlier detection, one with 5 NOT_FOUND does
 * not; without the key every code but 0 does.
 *
 * @param errorCodes which {@code grpc-status} codes count as the backend's failure
 */
public record GrpcSettings(GrpcErrorCodes errorCodes) {
  /** Every non-zero code is an error. */
  public static final GrpcSettings DEFAULTS = new GrpcSettings(GrpcErrorCodes.ALL_ERRORS);
}
