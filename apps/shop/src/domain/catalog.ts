/**
 * The product catalog: the {@link Product} type and a deterministic generator. The same seed
 * always yields the same products, so tests, demos and the embedded model's scripts can rely on
 * names, ids and prices. A few hand-written demo products come first (ids `p-0001`...); the rest
 * are composed from per-category word lists.
 */

/** One product of the shop. Prices are integer cents; stock is counted per product. */
export interface Product {
  /** Stable id, `p-0001` style. */
  readonly id: string;
  /** Merchant stock-keeping unit, e.g. `RUN-STR-0001`. */
  readonly sku: string;
  readonly name: string;
  readonly brand: string;
  /** Display name of the category, e.g. `Running Shoes`. */
  readonly category: string;
  /** Lower-case search keywords. */
  readonly tags: readonly string[];
  /** The price a shopper sees and pays now: after the discount, when one applies. */
  readonly priceCents: number;
  /** The price before the discount; present only while one applies (domain/discounts.ts). */
  readonly listPriceCents?: number;
  /** The whole percentage off the list price; present only while a discount applies. */
  readonly discountPercent?: number;
  /**
   * Available sizes (empty for one-size products). A cart line of a sized product needs one
   * (domain/cart.ts); stock is tracked per product, not per size.
   */
  readonly sizes: readonly string[];
  /** Available colours; with more than one, a cart line needs one chosen. */
  readonly colors: readonly string[];
  /** Units in stock, a non-negative integer. */
  readonly stock: number;
  /** Average review rating, 1.0 to 5.0 with one decimal. */
  readonly rating: number;
  /** One or two sentences. */
  readonly description: string;
}

/** The seed used when none is given. */
export const DEFAULT_CATALOG_SEED = 20_240_601;

/** The number of products generated when no count is given. */
export const DEFAULT_CATALOG_SIZE = 220;

const SHOE_SIZES = ["US 6", "US 7", "US 8", "US 9", "US 10", "US 11", "US 12", "US 13"];
const SOCK_SIZES = ["S", "M", "L", "XL"];
const APPAREL_SIZES = ["XS", "S", "M", "L", "XL", "XXL"];

type DemoProduct = Omit<Product, "id" | "sku" | "listPriceCents" | "discountPercent">;

/** Hand-written products the demo script and docs refer to by name; they always come first. */
const DEMO_PRODUCTS: readonly DemoProduct[] = [
  {
    name: "Aero Trail Runner",
    brand: "Stridewell",
    category: "Running Shoes",
    tags: ["running", "shoes", "trail", "lightweight"],
    priceCents: 8_900,
    sizes: SHOE_SIZES,
    colors: ["Slate", "Volt"],
    stock: 42,
    rating: 4.6,
    description:
      "A light trail running shoe with a grippy lug outsole and a breathable mesh upper.",
  },
  {
    name: "Merino Wool Socks",
    brand: "Northpeak",
    category: "Socks",
    tags: ["socks", "merino", "wool", "running", "hiking"],
    priceCents: 1_450,
    sizes: SOCK_SIZES,
    colors: ["Charcoal", "Oatmeal"],
    stock: 120,
    rating: 4.8,
    description: "Soft merino wool socks that stay warm when wet and do not hold odours.",
  },
  {
    name: "Swift Road Racer",
    brand: "Fleetfoot",
    category: "Running Shoes",
    tags: ["running", "shoes", "road", "racing", "lightweight"],
    priceCents: 7_499,
    sizes: SHOE_SIZES,
    colors: ["White", "Red"],
    stock: 25,
    rating: 4.3,
    description: "A low-drop road racer for tempo runs and race day.",
  },
  {
    name: "Pacer Daily Trainer",
    brand: "Kinetica",
    category: "Running Shoes",
    tags: ["running", "shoes", "road", "cushioned"],
    priceCents: 5_900,
    sizes: SHOE_SIZES,
    colors: ["Black", "Grey"],
    stock: 60,
    rating: 4.1,
    description: "An affordable cushioned trainer for everyday miles.",
  },
  {
    name: "Cloud Tempo Trainer",
    brand: "Kinetica",
    category: "Running Shoes",
    tags: ["running", "shoes", "road", "cushioned"],
    priceCents: 12_900,
    sizes: SHOE_SIZES,
    colors: ["Blue", "White"],
    stock: 18,
    rating: 4.7,
    description: "Plush foam with a snappy plate for long runs at a steady pace.",
  },
  {
    name: "Summit Ultra Trail",
    brand: "Altura",
    category: "Running Shoes",
    tags: ["running", "shoes", "trail", "ultra", "cushioned"],
    priceCents: 14_995,
    sizes: SHOE_SIZES,
    colors: ["Forest", "Orange"],
    stock: 9,
    rating: 4.5,
    description: "A protective, cushioned trail shoe built for ultra distances.",
  },
  {
    name: "Storm Waterproof Trail Runner",
    brand: "Northpeak",
    category: "Running Shoes",
    tags: ["running", "shoes", "trail", "waterproof"],
    priceCents: 11_200,
    sizes: SHOE_SIZES,
    colors: ["Black", "Olive"],
    stock: 4,
    rating: 4.2,
    description: "A waterproof membrane keeps feet dry on muddy, rainy trails.",
  },
  {
    name: "Velocity Carbon Elite",
    brand: "Fleetfoot",
    category: "Running Shoes",
    tags: ["running", "shoes", "road", "racing", "carbon"],
    priceCents: 21_900,
    sizes: SHOE_SIZES,
    colors: ["Volt"],
    stock: 6,
    rating: 4.9,
    description: "A carbon-plated racing shoe for personal bests on the road.",
  },
];

/** A product noun with its own keywords and, when it differs from its category's, price range. */
interface Noun {
  readonly name: string;
  readonly tags: readonly string[];
  /** Dollar range; defaults to the category's. */
  readonly price?: readonly [number, number];
  /** Sizes; default to the category's. */
  readonly sizes?: readonly string[];
}

interface CategoryTemplate {
  readonly category: string;
  readonly code: string;
  readonly tags: readonly string[];
  readonly brands: readonly string[];
  readonly models: readonly string[];
  readonly nouns: readonly Noun[];
  readonly price: readonly [number, number];
  readonly sizes: readonly string[];
  readonly colors: readonly string[];
  readonly features: readonly string[];
}

const CATEGORIES: readonly CategoryTemplate[] = [
  {
    category: "Running Shoes",
    code: "RUN",
    tags: ["running", "shoes"],
    brands: ["Stridewell", "Fleetfoot", "Kinetica", "Altura", "Northpeak"],
    models: ["Nimbus", "Vector", "Comet", "Zephyr", "Horizon", "Apex", "Rapid", "Drift", "Pulse"],
    nouns: [
      { name: "Road Runner", tags: ["road"] },
      { name: "Trail Runner", tags: ["trail"] },
      { name: "Racer", tags: ["road", "racing", "lightweight"] },
      { name: "Daily Trainer", tags: ["road", "cushioned"] },
      { name: "Speed Trainer", tags: ["road", "racing"] },
      { name: "Trail Shoe", tags: ["trail", "grip"] },
    ],
    price: [55, 199],
    sizes: SHOE_SIZES,
    colors: ["Black", "White", "Blue", "Red", "Volt", "Grey"],
    features: [
      "responsive foam for everyday miles",
      "a grippy outsole for loose terrain",
      "a breathable knit upper",
      "a rocker shape that rolls you forward",
      "a wide toe box for long runs",
    ],
  },
  {
    category: "Hiking Boots",
    code: "HIK",
    tags: ["hiking", "boots", "outdoor"],
    brands: ["Altura", "Northpeak", "Ridgeline"],
    models: ["Granite", "Cascade", "Timber", "Alpine", "Canyon", "Basalt"],
    nouns: [
      { name: "Hiking Boot", tags: ["hiking"] },
      { name: "Mid Boot", tags: ["ankle", "support"] },
      { name: "Waterproof Boot", tags: ["waterproof"] },
      { name: "Approach Shoe", tags: ["climbing", "shoes"] },
    ],
    price: [89, 279],
    sizes: SHOE_SIZES,
    colors: ["Brown", "Olive", "Grey", "Black"],
    features: [
      "a waterproof leather upper",
      "a stiff shank for rocky trails",
      "a deep-lug sole that sheds mud",
      "a padded collar for ankle support",
    ],
  },
  {
    category: "Socks",
    code: "SOC",
    tags: ["socks"],
    brands: ["Northpeak", "Stridewell", "Woolly Co"],
    models: ["Bamboo", "Cushioned", "Compression", "Lightweight", "Thermal", "Alpaca", "Cotton"],
    nouns: [
      { name: "Running Socks", tags: ["running"] },
      { name: "Hiking Socks", tags: ["hiking", "wool"] },
      { name: "Crew Socks", tags: ["everyday"] },
      { name: "Ankle Socks", tags: ["everyday", "running"] },
      { name: "No-Show Socks", tags: ["everyday"] },
    ],
    price: [8, 29],
    sizes: SOCK_SIZES,
    colors: ["Black", "White", "Grey", "Navy", "Charcoal"],
    features: [
      "a seamless toe that prevents blisters",
      "arch support that keeps them in place",
      "moisture-wicking yarn",
      "extra padding under the heel",
    ],
  },
  {
    category: "Tops",
    code: "TOP",
    tags: ["apparel", "tops", "shirt"],
    brands: ["Fleetfoot", "Kinetica", "Summitwear"],
    models: ["Breeze", "Core", "Element", "Vapor", "Heritage", "Flow"],
    nouns: [
      { name: "Running Tee", tags: ["running", "t-shirt"] },
      { name: "Tank Top", tags: ["running", "gym"] },
      { name: "Long Sleeve Shirt", tags: ["running"] },
      { name: "Base Layer", tags: ["thermal", "winter"] },
      { name: "Hoodie", tags: ["casual", "warm"] },
      { name: "Quarter-Zip", tags: ["warm", "running"] },
    ],
    price: [18, 89],
    sizes: APPAREL_SIZES,
    colors: ["Black", "White", "Navy", "Coral", "Sage"],
    features: [
      "quick-drying fabric",
      "flatlock seams that do not chafe",
      "reflective details for night runs",
      "a soft recycled-polyester knit",
    ],
  },
  {
    category: "Jackets",
    code: "JKT",
    tags: ["apparel", "jackets", "outerwear"],
    brands: ["Northpeak", "Summitwear", "Altura"],
    models: ["Storm", "Glacier", "Ridge", "Tundra", "Squall", "Aurora"],
    nouns: [
      { name: "Rain Jacket", tags: ["rain", "waterproof"] },
      { name: "Windbreaker", tags: ["wind", "running"] },
      { name: "Down Jacket", tags: ["insulated", "winter"], price: [149, 349] },
      { name: "Softshell Jacket", tags: ["hiking"] },
      { name: "Fleece Jacket", tags: ["fleece", "warm"] },
      { name: "Running Vest", tags: ["running", "wind"] },
    ],
    price: [59, 249],
    sizes: APPAREL_SIZES,
    colors: ["Black", "Red", "Blue", "Olive", "Yellow"],
    features: [
      "taped seams and an adjustable hood",
      "a packable design that fits in its own pocket",
      "pit zips for ventilation",
      "a DWR finish that beads off light rain",
    ],
  },
  {
    category: "Shorts & Tights",
    code: "BTM",
    tags: ["apparel", "bottoms"],
    brands: ["Fleetfoot", "Kinetica", "Stridewell"],
    models: ["Sprint", "Motion", "Flex", "Pace", "Tempo", "Glide"],
    nouns: [
      { name: "Running Shorts", tags: ["running", "shorts"] },
      { name: "Compression Tights", tags: ["running", "tights", "compression"] },
      { name: "Joggers", tags: ["casual", "pants"] },
      { name: "Hiking Pants", tags: ["hiking", "pants"] },
      { name: "Split Shorts", tags: ["running", "racing", "shorts"] },
    ],
    price: [25, 110],
    sizes: APPAREL_SIZES,
    colors: ["Black", "Navy", "Grey", "Olive"],
    features: [
      "a zip pocket for keys and gels",
      "a built-in liner",
      "four-way stretch fabric",
      "a drawcord waist that stays put",
    ],
  },
  {
    category: "Backpacks",
    code: "BAG",
    tags: ["bags", "backpack"],
    brands: ["Ridgeline", "Northpeak", "Packwise"],
    models: ["Voyager", "Summit", "Metro", "Trekker", "Ranger", "Nomad"],
    nouns: [
      { name: "Daypack", tags: ["hiking", "travel"] },
      { name: "Trail Pack", tags: ["hiking", "trail"], price: [89, 279] },
      { name: "Commuter Backpack", tags: ["travel", "laptop"] },
      { name: "Duffel Bag", tags: ["travel", "gym"] },
      { name: "Hip Pack", tags: ["running", "travel"], price: [19, 49] },
    ],
    price: [39, 189],
    sizes: [],
    colors: ["Black", "Grey", "Teal", "Rust"],
    features: [
      "a ventilated back panel",
      "a padded laptop sleeve",
      "water-resistant ripstop fabric",
      "a hydration sleeve and hip belt pockets",
    ],
  },
  {
    category: "Accessories",
    code: "ACC",
    tags: ["accessories"],
    brands: ["Fleetfoot", "Northpeak", "Kinetica"],
    models: ["Sport", "Aero", "Polar", "Sunrise", "Summit", "Dash"],
    nouns: [
      { name: "Running Cap", tags: ["running", "hat", "sun"], sizes: [] },
      { name: "Beanie", tags: ["winter", "hat", "warm"], sizes: [] },
      { name: "Headband", tags: ["running", "sweat"], sizes: [] },
      { name: "Running Gloves", tags: ["running", "winter"], sizes: ["S/M", "L/XL"] },
      { name: "Sunglasses", tags: ["sun", "eyewear"], price: [49, 179], sizes: [] },
      { name: "Neck Gaiter", tags: ["winter", "sun"], sizes: [] },
    ],
    price: [12, 45],
    sizes: [],
    colors: ["Black", "White", "Orange", "Blue"],
    features: [
      "a sweat-wicking band",
      "reflective trim",
      "a lightweight stretch fabric",
      "UV protection",
    ],
  },
  {
    category: "Electronics",
    code: "ELC",
    tags: ["electronics", "gear"],
    brands: ["Pacetech", "Soundmile", "Lumen"],
    models: ["Orbit", "Nova", "Echo", "Titan", "Vertex", "Quantum"],
    nouns: [
      { name: "GPS Watch", tags: ["watch", "gps", "running"], price: [149, 649] },
      { name: "Wireless Earbuds", tags: ["audio", "music", "headphones"], price: [49, 249] },
      { name: "Headlamp", tags: ["lighting", "night", "camping"], price: [25, 119] },
      { name: "Heart Rate Monitor", tags: ["fitness", "running", "sensor"], price: [39, 129] },
    ],
    price: [39, 199],
    sizes: [],
    colors: ["Black", "Silver", "White"],
    features: [
      "a battery that lasts for days",
      "Bluetooth pairing with your phone",
      "a rugged, water-resistant case",
      "USB-C charging",
    ],
  },
  {
    category: "Hydration",
    code: "HYD",
    tags: ["hydration", "water"],
    brands: ["Packwise", "Ridgeline", "Aquaflow"],
    models: ["Flow", "Glacier", "Trail", "Pure", "Arc", "Rush"],
    nouns: [
      { name: "Water Bottle", tags: ["bottle"], price: [12, 35] },
      { name: "Insulated Bottle", tags: ["bottle", "insulated"], price: [22, 49] },
      { name: "Hydration Vest", tags: ["running", "vest"], price: [69, 179] },
      { name: "Soft Flask", tags: ["running", "bottle"], price: [15, 35] },
      { name: "Water Filter", tags: ["camping", "hiking"], price: [25, 89] },
    ],
    price: [12, 89],
    sizes: [],
    colors: ["Blue", "Black", "Green", "Clear"],
    features: [
      "a leak-proof cap",
      "BPA-free materials",
      "a bite valve you can drink from on the move",
      "a shape that fits in a vest pocket",
    ],
  },
  {
    category: "Camping",
    code: "CMP",
    tags: ["camping", "outdoor"],
    brands: ["Ridgeline", "Northpeak", "Altura", "Campcraft"],
    models: ["Basecamp", "Starlight", "Meadow", "Ember", "Pine", "Sierra"],
    nouns: [
      { name: "2-Person Tent", tags: ["tent", "backpacking"], price: [149, 599] },
      { name: "Family Tent", tags: ["tent", "family"], price: [249, 899] },
      { name: "Sleeping Bag", tags: ["sleeping", "backpacking"], price: [79, 449] },
      { name: "Sleeping Pad", tags: ["sleeping", "backpacking"], price: [39, 199] },
      { name: "Camp Stove", tags: ["cooking"], price: [35, 159] },
      { name: "Trekking Poles", tags: ["hiking", "poles"], price: [39, 189] },
      { name: "Camp Chair", tags: ["chair"], price: [29, 129] },
    ],
    price: [29, 599],
    sizes: [],
    colors: ["Green", "Orange", "Grey", "Sand"],
    features: [
      "a quick, colour-coded pitch",
      "an ultralight build for backpacking",
      "a compact stuff sack",
      "durable, recycled materials",
    ],
  },
  {
    category: "Fitness",
    code: "FIT",
    tags: ["fitness", "training"],
    brands: ["Kinetica", "Corebalance", "Ironform"],
    models: ["Pro", "Core", "Balance", "Power", "Zen", "Studio"],
    nouns: [
      { name: "Yoga Mat", tags: ["yoga", "mat"], price: [19, 129] },
      { name: "Foam Roller", tags: ["recovery"], price: [15, 69] },
      { name: "Resistance Bands", tags: ["strength", "bands"], price: [12, 49] },
      { name: "Kettlebell", tags: ["strength", "weights"], price: [29, 149] },
      { name: "Adjustable Dumbbells", tags: ["strength", "weights"], price: [149, 499] },
      { name: "Jump Rope", tags: ["cardio"], price: [9, 39] },
    ],
    price: [9, 499],
    sizes: [],
    colors: ["Black", "Purple", "Teal", "Grey"],
    features: [
      "a non-slip surface",
      "a compact design for small spaces",
      "gym-grade durability",
      "a carry strap",
    ],
  },
];

/** Cent endings that make generated prices look like shop prices. */
const PRICE_ENDINGS = [0, 50, 95, 99];

/**
 * Generates the catalog: the demo products, then generated ones up to `count` products in all.
 * Deterministic: the same `seed` and `count` always give the same list (ids `p-0001`...).
 */
export function generateCatalog(
  seed: number = DEFAULT_CATALOG_SEED,
  count: number = DEFAULT_CATALOG_SIZE,
): Product[] {
  const random = seededRandom(seed);
  const products: Product[] = [];
  const names = new Set<string>();
  const add = (product: DemoProduct, code: string) => {
    const number = String(products.length + 1).padStart(4, "0");
    names.add(product.name);
    products.push({
      ...product,
      id: `p-${number}`,
      sku: `${code}-${product.brand.slice(0, 3).toUpperCase()}-${number}`,
    });
  };
  for (const demo of DEMO_PRODUCTS) {
    if (products.length >= count) break;
    add(demo, CATEGORIES.find((c) => c.category === demo.category)?.code ?? "GEN");
  }
  // Categories take turns so every category is well represented whatever the count.
  let attempts = 0;
  for (let turn = 0; products.length < count; turn++) {
    if (++attempts > count * 100) throw new RangeError(`Cannot generate ${count} unique products.`);
    const template = CATEGORIES[turn % CATEGORIES.length]!;
    const product = composeProduct(template, random);
    if (names.has(product.name)) continue;
    add(product, template.code);
  }
  return products;
}

function composeProduct(template: CategoryTemplate, random: () => number): DemoProduct {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const model = pick(template.models);
  const noun = pick(template.nouns);
  const brand = pick(template.brands);
  const [low, high] = noun.price ?? template.price;
  const dollars = low + Math.floor(random() * (high - low));
  const stockRoll = random();
  // A few sold-out and nearly sold-out products keep the merchant's low-stock report interesting.
  const stock =
    stockRoll < 0.06
      ? 0
      : stockRoll < 0.15
        ? 1 + Math.floor(random() * 5)
        : 6 + Math.floor(random() * 75);
  const colors = template.colors.filter(() => random() < 0.5);
  const first = pick(template.features);
  const second = pick(template.features.filter((f) => f !== first));
  const name = `${model} ${noun.name}`;
  return {
    name,
    brand,
    category: template.category,
    tags: [...new Set([...template.tags, ...noun.tags])],
    priceCents: dollars * 100 + pick(PRICE_ENDINGS),
    sizes: noun.sizes ?? template.sizes,
    colors: colors.length > 0 ? colors : [pick(template.colors)],
    stock,
    rating: Math.round((3.2 + random() * 1.8) * 10) / 10,
    description: `${name} by ${brand}, with ${first} and ${second}.`,
  };
}

/**
 * A small deterministic generator of numbers in [0, 1): a 32-bit linear congruential step whose
 * high bits are used. Plenty for composing a catalog; not for anything secret.
 */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}
