package io.hybridcache.bench.mongo;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Deterministic TPC-DS-shaped documents for four tables, under their real column names in table
 * order, values typed as a loader with type inference would store them (identifiers and counts
 * int32, decimal(7,2) as double, dates as BSON dates, char/varchar as strings), each document with
 * an ObjectId {@code _id} as MongoDB gives one on insert. Row counts follow Table 4 of the MongoDB
 * analytical-queries seed (1 GB: store_sales 2,880,404, item 18,000, customer 100,000, date_dim
 * 73,049) times a scale factor; foreign keys of store_sales point at generated rows.
 *
 * <p>{@link #denormalized} is the seed's EmbedDocuments algorithm (Figure 7): each dimension document,
 * its {@code _id} removed, replaces the foreign key that refers to it in the fact document
 * ({@code ss_sold_date_sk}, {@code ss_item_sk}, {@code ss_customer_sk}).
 *
 * <p>Not thread-safe: holds a {@link Random}; the same seed and scale give the same documents.
 */
public final class TpcdsDocuments {
  /** Table 4 (1 GB data set) row counts. */
  public static final long STORE_SALES_1GB = 2_880_404;
  public static final long ITEM_1GB = 18_000;
  public static final long CUSTOMER_1GB = 100_000;
  public static final long DATE_DIM_1GB = 73_049;
  /** d_date_sk of 1998-01-02, the first sale date dsdgen uses. */
  private static final int FIRST_DATE_SK = 2_450_816;
  private static final LocalDate FIRST_DATE = LocalDate.of(1998, 1, 2);

  private static final String[] CATEGORIES = {"Women", "Men", "Children", "Shoes", "Music", "Jewelry", "Home",
      "Sports", "Books", "Electronics"};
  private static final String[] CLASSES = {"dresses", "pants", "shirts", "accessories", "rock", "pop", "country",
      "fiction", "romance", "camping", "fishing", "televisions", "stereo", "bedding", "furniture"};
  private static final String[] SYLLABLES = {"able", "anti", "bar", "cally", "eing", "ese", "n st", "ought", "pri",
      "ation"};
  private static final String[] COLORS = {"plum", "almond", "cornflower", "sienna", "ivory", "navy", "khaki",
      "powder", "red", "smoke"};
  private static final String[] SIZES = {"small", "medium", "large", "extra large", "petite", "N/A"};
  private static final String[] UNITS = {"Each", "Dozen", "Case", "Pound", "Ounce", "Box", "Bundle"};
  private static final String[] FIRST = {"James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael",
      "Linda", "William", "Elizabeth", "David", "Barbara"};
  private static final String[] LAST = {"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller",
      "Davis", "Rodriguez", "Martinez", "Hernandez", "Lopez"};
  private static final String[] SALUTATIONS = {"Mr.", "Mrs.", "Ms.", "Dr.", "Sir", "Miss"};
  private static final String[] COUNTRIES = {"CHILE", "NEPAL", "FRANCE", "ZIMBABWE", "UNITED STATES", "BRAZIL",
      "INDIA", "JAPAN"};
  private static final String[] WORDS = {"quickly", "final", "ideas", "cheap", "small", "new", "general", "full",
      "only", "fine", "different", "old", "large", "good", "available", "necessary", "young", "national"};

  private final Random rnd;
  private final double scale;
  private long ids;

  public TpcdsDocuments(long seed, double scale) {
    if (!(scale > 0 && scale <= 1)) {
      throw new IllegalArgumentException("scale must be in (0, 1], was " + scale);
    }
    this.rnd = new Random(seed);
    this.scale = scale;
  }

  /** Rows of a table with {@code rowsAt1Gb} rows in the 1 GB data set, at this scale (at least 1). */
  public long rows(long rowsAt1Gb) {
    return Math.max(1, Math.round(rowsAt1Gb * scale));
  }

  private ObjectId nextId() {
    return new ObjectId(0x5f000000 + (int) (ids >>> 24), (int) (ids++ & 0xFFFFFF));
  }

  public List<Document> dateDim() {
    List<Document> out = new ArrayList<>();
    long n = rows(DATE_DIM_1GB);
    for (int i = 0; i < n; i++) {
      LocalDate d = FIRST_DATE.plusDays(i);
      int sk = FIRST_DATE_SK + i;
      int monthSeq = (d.getYear() - 1900) * 12 + d.getMonthValue() - 1;
      int weekSeq = (sk - 2_415_022) / 7 + 1;
      int quarterSeq = (d.getYear() - 1900) * 4 + (d.getMonthValue() - 1) / 3 + 1;
      int qoy = (d.getMonthValue() - 1) / 3 + 1;
      boolean weekend = d.getDayOfWeek().getValue() >= 6;
      out.add(new Document("_id", nextId())
          .append("d_date_sk", sk)
          .append("d_date_id", textId(sk))
          .append("d_date", Date.from(d.atStartOfDay(ZoneOffset.UTC).toInstant()))
          .append("d_month_seq", monthSeq)
          .append("d_week_seq", weekSeq)
          .append("d_quarter_seq", quarterSeq)
          .append("d_year", d.getYear())
          .append("d_dow", d.getDayOfWeek().getValue() % 7)
          .append("d_moy", d.getMonthValue())
          .append("d_dom", d.getDayOfMonth())
          .append("d_qoy", qoy)
          .append("d_fy_year", d.getYear())
          .append("d_fy_quarter_seq", quarterSeq)
          .append("d_fy_week_seq", weekSeq)
          .append("d_day_name", d.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.ROOT))
          .append("d_quarter_name", d.getYear() + "Q" + qoy)
          .append("d_holiday", rnd.nextInt(40) == 0 ? "Y" : "N")
          .append("d_weekend", weekend ? "Y" : "N")
          .append("d_following_holiday", rnd.nextInt(40) == 0 ? "Y" : "N")
          .append("d_first_dom", sk - d.getDayOfMonth() + 1)
          .append("d_last_dom", sk - d.getDayOfMonth() + d.lengthOfMonth())
          .append("d_same_day_ly", sk - 365)
          .append("d_same_day_lq", sk - 91)
          .append("d_current_day", "N")
          .append("d_current_week", "N")
          .append("d_current_month", "N")
          .append("d_current_quarter", "N")
          .append("d_current_year", "N"));
    }
    return out;
  }

  public List<Document> item() {
    List<Document> out = new ArrayList<>();
    long n = rows(ITEM_1GB);
    for (int sk = 1; sk <= n; sk++) {
      int category = rnd.nextInt(CATEGORIES.length);
      int cls = rnd.nextInt(CLASSES.length);
      int manufact = 1 + rnd.nextInt(1000);
      double wholesale = cents(100, 9000);
      LocalDate start = LocalDate.of(1997 + rnd.nextInt(4), 1 + rnd.nextInt(12), 1 + rnd.nextInt(28));
      boolean current = rnd.nextBoolean();
      out.add(new Document("_id", nextId())
          .append("i_item_sk", sk)
          .append("i_item_id", textId(sk / 2 + 1))
          .append("i_rec_start_date", Date.from(start.atStartOfDay(ZoneOffset.UTC).toInstant()))
          .append("i_rec_end_date", current ? null
              : Date.from(start.plusYears(1 + rnd.nextInt(3)).atStartOfDay(ZoneOffset.UTC).toInstant()))
          .append("i_item_desc", sentence(60 + rnd.nextInt(140)))
          .append("i_current_price", Math.round(wholesale * (1 + rnd.nextDouble()) * 100) / 100.0)
          .append("i_wholesale_cost", wholesale)
          .append("i_brand_id", 1_000_001 + category * 1000 + rnd.nextInt(16))
          .append("i_brand", syllables(2) + " #" + (1 + rnd.nextInt(16)))
          .append("i_class_id", 1 + cls)
          .append("i_class", CLASSES[cls])
          .append("i_category_id", 1 + category)
          .append("i_category", CATEGORIES[category])
          .append("i_manufact_id", manufact)
          .append("i_manufact", syllables(2 + rnd.nextInt(2)))
          .append("i_size", SIZES[rnd.nextInt(SIZES.length)])
          .append("i_formulation", String.format(Locale.ROOT, "%07d%s%07d", rnd.nextInt(10_000_000),
              COLORS[rnd.nextInt(COLORS.length)], rnd.nextInt(10_000_000)))
          .append("i_color", COLORS[rnd.nextInt(COLORS.length)])
          .append("i_units", UNITS[rnd.nextInt(UNITS.length)])
          .append("i_container", "Unknown")
          .append("i_manager_id", 1 + rnd.nextInt(100))
          .append("i_product_name", syllables(3 + rnd.nextInt(2))));
    }
    return out;
  }

  public List<Document> customer() {
    List<Document> out = new ArrayList<>();
    long n = rows(CUSTOMER_1GB);
    for (int sk = 1; sk <= n; sk++) {
      String first = FIRST[rnd.nextInt(FIRST.length)];
      String last = LAST[rnd.nextInt(LAST.length)];
      out.add(new Document("_id", nextId())
          .append("c_customer_sk", sk)
          .append("c_customer_id", textId(sk))
          .append("c_current_cdemo_sk", 1 + rnd.nextInt(1_920_800))
          .append("c_current_hdemo_sk", 1 + rnd.nextInt(7200))
          .append("c_current_addr_sk", 1 + rnd.nextInt(50_000))
          .append("c_first_shipto_date_sk", 2_449_000 + rnd.nextInt(3000))
          .append("c_first_sales_date_sk", 2_449_000 + rnd.nextInt(3000))
          .append("c_salutation", SALUTATIONS[rnd.nextInt(SALUTATIONS.length)])
          .append("c_first_name", first)
          .append("c_last_name", last)
          .append("c_preferred_cust_flag", rnd.nextBoolean() ? "Y" : "N")
          .append("c_birth_day", 1 + rnd.nextInt(28))
          .append("c_birth_month", 1 + rnd.nextInt(12))
          .append("c_birth_year", 1924 + rnd.nextInt(69))
          .append("c_birth_country", COUNTRIES[rnd.nextInt(COUNTRIES.length)])
          .append("c_login", null)
          .append("c_email_address", first + "." + last + "@" + syllables(1).replace(" ", "") + ".com")
          .append("c_last_review_date_sk", 2_452_000 + rnd.nextInt(700)));
    }
    return out;
  }

  /** store_sales rows whose keys refer to {@code dates}, {@code items} and {@code customers} rows. */
  public List<Document> storeSales(int dates, int items, int customers) {
    List<Document> out = new ArrayList<>();
    long n = rows(STORE_SALES_1GB);
    int ticket = 0;
    for (long i = 0; i < n; i++) {
      if (i % 10 == 0) {
        ticket++; // about ten line items per ticket
      }
      int quantity = 1 + rnd.nextInt(100);
      long wholesale = 100 + rnd.nextInt(9900); // cents
      long list = wholesale + wholesale * rnd.nextInt(101) / 100;
      long sales = list * rnd.nextInt(101) / 100;
      long extSales = quantity * sales;
      long extWholesale = quantity * wholesale;
      long tax = extSales * rnd.nextInt(10) / 100;
      long coupon = rnd.nextInt(5) == 0 ? extSales * rnd.nextInt(101) / 100 : 0;
      long netPaid = extSales - coupon;
      out.add(new Document("_id", nextId())
          .append("ss_sold_date_sk", FIRST_DATE_SK + rnd.nextInt(dates))
          .append("ss_sold_time_sk", 28_800 + rnd.nextInt(46_800))
          .append("ss_item_sk", 1 + rnd.nextInt(items))
          .append("ss_customer_sk", 1 + rnd.nextInt(customers))
          .append("ss_cdemo_sk", 1 + rnd.nextInt(1_920_800))
          .append("ss_hdemo_sk", 1 + rnd.nextInt(7200))
          .append("ss_addr_sk", 1 + rnd.nextInt(50_000))
          .append("ss_store_sk", 1 + rnd.nextInt(12))
          .append("ss_promo_sk", 1 + rnd.nextInt(300))
          .append("ss_ticket_number", ticket)
          .append("ss_quantity", quantity)
          .append("ss_wholesale_cost", wholesale / 100.0)
          .append("ss_list_price", list / 100.0)
          .append("ss_sales_price", sales / 100.0)
          .append("ss_ext_discount_amt", quantity * (list - sales) / 100.0)
          .append("ss_ext_sales_price", extSales / 100.0)
          .append("ss_ext_wholesale_cost", extWholesale / 100.0)
          .append("ss_ext_list_price", quantity * list / 100.0)
          .append("ss_ext_tax", tax / 100.0)
          .append("ss_coupon_amt", coupon / 100.0)
          .append("ss_net_paid", netPaid / 100.0)
          .append("ss_net_paid_inc_tax", (netPaid + tax) / 100.0)
          .append("ss_net_profit", (netPaid - extWholesale) / 100.0));
    }
    return out;
  }

  /**
   * EmbedDocuments(F, D) for each dimension: copies of {@code storeSales} in which the foreign key
   * field holds the referenced dimension document without its {@code _id}.
   */
  public static List<Document> denormalized(List<Document> storeSales, List<Document> dates, List<Document> items,
                                            List<Document> customers) {
    List<Document> out = new ArrayList<>(storeSales.size());
    for (Document f : storeSales) {
      Document d = new Document(f);
      embed(d, "ss_sold_date_sk", dates, f.getInteger("ss_sold_date_sk") - FIRST_DATE_SK);
      embed(d, "ss_item_sk", items, f.getInteger("ss_item_sk") - 1);
      embed(d, "ss_customer_sk", customers, f.getInteger("ss_customer_sk") - 1);
      out.add(d);
    }
    return out;
  }

  private static void embed(Document fact, String key, List<Document> dimension, int index) {
    Document dim = new Document(dimension.get(index));
    dim.remove("_id");
    fact.put(key, dim);
  }

  private double cents(int lo, int hi) {
    return (lo + rnd.nextInt(hi - lo)) / 100.0;
  }

  /** dsdgen's 16-character business keys: base-26 letters of the number, padded with 'A'. */
  private static String textId(long n) {
    char[] c = "AAAAAAAAAAAAAAAA".toCharArray();
    for (int i = 15; i >= 8 && n > 0; i--) {
      c[i] = (char) ('A' + n % 26);
      n /= 26;
    }
    return new String(c);
  }

  private String syllables(int k) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < k; i++) {
      sb.append(SYLLABLES[rnd.nextInt(SYLLABLES.length)]);
    }
    return sb.toString();
  }

  private String sentence(int chars) {
    StringBuilder sb = new StringBuilder();
    while (sb.length() < chars) {
      sb.append(sb.length() == 0 ? "" : " ").append(WORDS[rnd.nextInt(WORDS.length)]);
    }
    return sb.append('.').toString();
  }
}
