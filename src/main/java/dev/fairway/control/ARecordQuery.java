package dev.fairway.control;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.resolver.dns.DnsErrorCauseException;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.DnsNameResolverTimeoutException;
import io.netty.resolver.dns.DnsServerAddressStreamProvider;
import io.netty.resolver.dns.DnsServerAddressStreamProviders;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.dns.DnsException;
import io.vertx.core.dns.DnsResponseCode;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * A records with their TTLs, which Vert.x's {@code DnsClient.resolveA} does not give: one Netty
 * resolver on the caller's event loop, no cache, asked for the records themselves.
 *
 * <p>Example: for {@code api.internal} answering {@code 10.0.0.1} and {@code 10.0.0.2} with TTL 30,
 * {@code resolve("api.internal")} completes with {@code [A(10.0.0.1, 30), A(10.0.0.2, 30)]}; a
 * {@code SERVFAIL} fails it with {@link DnsException} {@code SERVFAIL}, as Vert.x's client does.
 */
final class ARecordQuery {
  /** One address and how long it may be cached. */
  record Address(String ip, long ttlSeconds) {
  }

  private final ContextInternal context;
  private final DnsNameResolver resolver;

  /** @param server the name server's host and port, or {@code null} for the system's */
  ARecordQuery(Vertx vertx, InetSocketAddress server, long queryTimeoutMs) {
    this.context = ((VertxInternal) vertx).getOrCreateContext();
    DnsServerAddressStreamProvider servers = server == null ? DnsServerAddressStreamProviders.platformDefault()
        : new SingletonDnsServerAddressStreamProvider(server);
    VertxInternal vx = (VertxInternal) vertx;
    this.resolver = new DnsNameResolverBuilder(context.nettyEventLoop())
        .datagramChannelFactory(() -> vx.transport().datagramChannel())
        .nameServerProvider(servers).queryTimeoutMillis(queryTimeoutMs).build();
  }

  /** The A records of {@code name}; an empty list when it has none. */
  Future<List<Address>> resolve(String name) {
    Promise<List<Address>> done = context.promise();
    resolver.resolveAll(new DefaultDnsQuestion(name, DnsRecordType.A)).addListener(f -> {
      if (!f.isSuccess()) {
        Throwable why = translate(f.cause());
        if (why instanceof UnknownHostException && why.getCause() == null) {
          done.complete(List.of()); // an answer without records
        } else {
          done.fail(why);
        }
        return;
      }
      @SuppressWarnings("unchecked")
      List<DnsRecord> records = (List<DnsRecord>) f.getNow();
      List<Address> out = new ArrayList<>();
      try {
        for (DnsRecord r : records) {
          if (r.type() == DnsRecordType.A && r instanceof DnsRawRecord raw && raw.content().readableBytes() == 4) {
            ByteBuf b = raw.content();
            byte[] ip = new byte[4];
            b.getBytes(b.readerIndex(), ip);
            out.add(new Address(InetAddress.getByAddress(ip).getHostAddress(), r.timeToLive()));
          }
        }
        done.complete(out);
      } catch (UnknownHostException e) {
        done.fail(e);
      } finally {
        records.forEach(ReferenceCountUtil::release);
      }
    });
    return done.future();
  }

  void close() {
    resolver.close();
  }

  /**
   * A name server's error code as Vert.x's {@link DnsException}, a timeout as Netty's timeout (as
   * Vert.x's client reports them); other failures as they are.
   */
  private static Throwable translate(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof DnsErrorCauseException e) {
        return new DnsException(DnsResponseCode.valueOf(e.getCode().intValue()));
      }
      if (t instanceof DnsNameResolverTimeoutException) {
        return t;
      }
    }
    return cause;
  }
}
