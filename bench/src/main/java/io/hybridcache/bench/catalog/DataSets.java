package io.hybridcache.bench.catalog;

import io.hybridcache.core.catalog.Row;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The deterministic row generators of the footprint comparison and the JMH benchmarks. Thread-safe:
 * stateless; each call takes its own {@link Random}.
 *
 * <ul>
 *   <li>{@link #ycsb}: a YCSB core-workload record, 10 fields {@code field0..field9} of 100 random
 *       printable bytes.
 *   <li>{@link #paper}: the CaSSanDra paper's set-up (section VI-B): 5 to 10 columns of 10-byte values,
 *       5-byte column names ({@code fld00..fld09}; a row of n columns has the first n).
 *   <li>{@link #storeSales}: a TPC-DS {@code store_sales} row as a document: its 23 columns under their
 *       real names, values as the text dsdgen writes (surrogate keys in their scale-1 ranges, prices
 *       with two decimals derived as the spec derives them).
 * </ul>
 */
public final class DataSets {
  /** TPC-DS store_sales columns in table order. */
  public static final List<String> STORE_SALES_COLUMNS = List.of(
      "ss_sold_date_sk", "ss_sold_time_sk", "ss_item_sk", "ss_customer_sk", "ss_cdemo_sk", "ss_hdemo_sk",
      "ss_addr_sk", "ss_store_sk", "ss_promo_sk", "ss_ticket_number", "ss_quantity", "ss_wholesale_cost",
      "ss_list_price", "ss_sales_price", "ss_ext_discount_amt", "ss_ext_sales_price", "ss_ext_wholesale_cost",
      "ss_ext_list_price", "ss_ext_tax", "ss_coupon_amt", "ss_net_paid", "ss_net_paid_inc_tax", "ss_net_profit");

  private DataSets() {}

  public static Row ycsb(Random rnd) {
    Row.Builder b = Row.builder();
    for (int i = 0; i < 10; i++) {
      b.put("field" + i, printable(rnd, 100));
    }
    return b.build();
  }

  public static Row paper(Random rnd) {
    int n = 5 + rnd.nextInt(6);
    Row.Builder b = Row.builder();
    for (int i = 0; i < n; i++) {
      b.put(String.format(Locale.ROOT, "fld%02d", i), printable(rnd, 10));
    }
    return b.build();
  }

  public static Row storeSales(Random rnd) {
    long[] keys = {
        range(rnd, 2450816, 2452642), range(rnd, 28800, 75599), range(rnd, 1, 18000), range(rnd, 1, 100000),
        range(rnd, 1, 1920800), range(rnd, 1, 7200), range(rnd, 1, 50000), range(rnd, 1, 12),
        range(rnd, 1, 300), range(rnd, 1, 240000)};
    int quantity = (int) range(rnd, 1, 100);
    long wholesale = range(rnd, 100, 10000); // cents
    long list = wholesale + wholesale * rnd.nextInt(101) / 100;
    long sales = list * rnd.nextInt(101) / 100;
    long extDiscount = quantity * (list - sales);
    long extSales = quantity * sales;
    long extWholesale = quantity * wholesale;
    long extList = quantity * list;
    long extTax = extSales * rnd.nextInt(10) / 100;
    long coupon = rnd.nextInt(5) == 0 ? extSales * rnd.nextInt(101) / 100 : 0;
    long netPaid = extSales - coupon;
    String[] text = new String[23];
    for (int i = 0; i < keys.length; i++) {
      text[i] = Long.toString(keys[i]);
    }
    text[10] = Integer.toString(quantity);
    long[] money = {wholesale, list, sales, extDiscount, extSales, extWholesale, extList, extTax, coupon, netPaid,
        netPaid + extTax, netPaid - extWholesale};
    for (int i = 0; i < money.length; i++) {
      text[11 + i] = cents(money[i]);
    }
    Row.Builder b = Row.builder();
    for (int i = 0; i < 23; i++) {
      b.put(STORE_SALES_COLUMNS.get(i), text[i].getBytes(StandardCharsets.UTF_8));
    }
    return b.build();
  }

  private static long range(Random rnd, long lo, long hi) {
    return lo + (long) (rnd.nextDouble() * (hi - lo + 1));
  }

  private static String cents(long c) {
    return (c < 0 ? "-" : "") + Math.abs(c) / 100 + "." + String.format(Locale.ROOT, "%02d", Math.abs(c) % 100);
  }

  private static byte[] printable(Random rnd, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (' ' + 1 + rnd.nextInt(94));
    }
    return b;
  }
}
