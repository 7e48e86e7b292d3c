/**
 * Chinese shopping words and the catalog's English words they stand for. The catalog's names are
 * English (brands and model names stay in Latin letters: "Aero越野跑鞋"), so a Chinese mention is
 * matched by turning its product words into the English ones, longest term first.
 */

import { CHINESE_COLOR_WORDS } from "../views/chinese-color-words.js";

/** [Chinese term, English words], longest terms are tried first. */
const TERMS: ReadonlyArray<readonly [string, string]> = [
  // shoes and boots
  ["越野跑鞋", "trail running shoes"],
  ["越野鞋", "trail shoes"],
  ["公路跑鞋", "road runner"],
  ["竞速跑鞋", "racer"],
  ["竞速鞋", "racer"],
  ["碳板跑鞋", "carbon racer"],
  ["训练鞋", "trainer"],
  ["跑步鞋", "running shoes"],
  ["跑鞋", "running shoes"],
  ["运动鞋", "running shoes"],
  ["徒步鞋", "hiking boots"],
  ["登山鞋", "hiking boots"],
  ["徒步靴", "hiking boots"],
  ["登山靴", "hiking boots"],
  ["中帮靴", "mid boot"],
  ["防水靴", "waterproof boot"],
  ["接近鞋", "approach shoe"],
  ["攀岩鞋", "approach shoe"],
  ["靴子", "boots"],
  ["鞋子", "shoes"],
  ["鞋", "shoes"],
  ["靴", "boots"],
  // socks
  ["羊毛袜", "wool socks"],
  ["美利奴", "merino"],
  ["美丽奴", "merino"],
  ["跑步袜", "running socks"],
  ["徒步袜", "hiking socks"],
  ["压缩袜", "compression socks"],
  ["船袜", "no-show socks"],
  ["隐形袜", "no-show socks"],
  ["短袜", "ankle socks"],
  ["中筒袜", "crew socks"],
  ["袜子", "socks"],
  ["袜", "socks"],
  // apparel
  ["速干T恤", "running tee"],
  ["跑步T恤", "running tee"],
  ["T恤", "tee"],
  ["t恤", "tee"],
  ["短袖", "tee"],
  ["背心", "tank top"],
  ["长袖", "long sleeve shirt"],
  ["打底衫", "base layer"],
  ["卫衣", "hoodie"],
  ["连帽衫", "hoodie"],
  ["半拉链", "quarter-zip"],
  ["冲锋衣", "rain jacket"],
  ["雨衣", "rain jacket"],
  ["防风衣", "windbreaker"],
  ["风衣", "windbreaker"],
  ["皮肤衣", "windbreaker"],
  ["羽绒服", "down jacket"],
  ["软壳", "softshell jacket"],
  ["抓绒", "fleece jacket"],
  ["跑步马甲", "running vest"],
  ["马甲", "vest"],
  ["夹克", "jacket"],
  ["外套", "jacket"],
  ["短裤", "shorts"],
  ["压缩裤", "compression tights"],
  ["紧身裤", "tights"],
  ["慢跑裤", "joggers"],
  ["运动裤", "joggers"],
  ["徒步裤", "hiking pants"],
  ["裤子", "pants"],
  // bags
  ["双肩包", "backpack"],
  ["背包", "backpack"],
  ["通勤包", "commuter backpack"],
  ["日用包", "daypack"],
  ["行李袋", "duffel bag"],
  ["旅行袋", "duffel bag"],
  ["腰包", "hip pack"],
  // accessories
  ["跑步帽", "running cap"],
  ["鸭舌帽", "cap"],
  ["毛线帽", "beanie"],
  ["帽子", "cap"],
  ["头带", "headband"],
  ["发带", "headband"],
  ["手套", "gloves"],
  ["太阳镜", "sunglasses"],
  ["墨镜", "sunglasses"],
  ["围脖", "neck gaiter"],
  ["脖套", "neck gaiter"],
  // electronics
  ["运动手表", "gps watch"],
  ["手表", "watch"],
  ["耳机", "earbuds"],
  ["头灯", "headlamp"],
  ["心率带", "heart rate monitor"],
  ["心率", "heart rate monitor"],
  // hydration
  ["保温杯", "insulated bottle"],
  ["保温瓶", "insulated bottle"],
  ["保温水壶", "insulated bottle"],
  ["水袋背心", "hydration vest"],
  ["越野背心", "hydration vest"],
  ["软水壶", "soft flask"],
  ["水壶", "bottle"],
  ["水瓶", "bottle"],
  ["净水器", "water filter"],
  ["滤水器", "water filter"],
  // camping
  ["双人帐篷", "2-person tent"],
  ["家庭帐篷", "family tent"],
  ["帐篷", "tent"],
  ["睡袋", "sleeping bag"],
  ["防潮垫", "sleeping pad"],
  ["睡垫", "sleeping pad"],
  ["炉头", "camp stove"],
  ["炉子", "camp stove"],
  ["登山杖", "trekking poles"],
  ["露营椅", "camp chair"],
  ["椅子", "camp chair"],
  // fitness
  ["瑜伽垫", "yoga mat"],
  ["泡沫轴", "foam roller"],
  ["弹力带", "resistance bands"],
  ["壶铃", "kettlebell"],
  ["哑铃", "dumbbells"],
  ["跳绳", "jump rope"],
  // qualities and materials
  ["轻量", "lightweight"],
  ["轻便", "lightweight"],
  ["防水", "waterproof"],
  ["越野", "trail"],
  ["公路", "road"],
  ["羊毛", "wool"],
  ["竹纤维", "bamboo"],
  ["保暖", "thermal"],
  ["压缩", "compression"],
  ["纯棉", "cotton"],
  ["徒步", "hiking"],
  ["登山", "hiking"],
  ["露营", "camping"],
  ["跑步", "running"],
  ["健身", "fitness"],
];

/** Chinese colour words and the catalog's colour names. */
export const CHINESE_COLORS: ReadonlyArray<readonly [string, string]> = [
  ["荧光绿", "Volt"],
  ["石板灰", "Slate"],
  ["灰蓝", "Slate"],
  ["蓝灰", "Slate"],
  ["荧光", "Volt"],
  ["森林绿", "Forest"],
  ["橄榄绿", "Olive"],
  ["橄榄", "Olive"],
  ["海军蓝", "Navy"],
  ["藏青", "Navy"],
  ["藏蓝", "Navy"],
  ["炭灰", "Charcoal"],
  ["深灰", "Charcoal"],
  ["燕麦", "Oatmeal"],
  ["石板", "Slate"],
  ["珊瑚", "Coral"],
  ["鼠尾草", "Sage"],
  ["沙色", "Sand"],
  ["铁锈", "Rust"],
  ["青色", "Teal"],
  ["透明", "Clear"],
  ["银色", "Silver"],
  ["黑色", "Black"],
  ["白色", "White"],
  ["蓝色", "Blue"],
  ["红色", "Red"],
  ["灰色", "Grey"],
  ["绿色", "Green"],
  ["橙色", "Orange"],
  ["黄色", "Yellow"],
  ["紫色", "Purple"],
  ["棕色", "Brown"],
  ["咖啡色", "Brown"],
];

const SORTED = [...TERMS].sort((a, b) => b[0].length - a[0].length);

/** Replaces the Chinese product words of a text with their English words (others stay). */
export function chineseToEnglish(text: string): string {
  let out = "";
  let i = 0;
  outer: while (i < text.length) {
    for (const [zh, en] of SORTED) {
      if (text.startsWith(zh, i)) {
        out += ` ${en} `;
        i += zh.length;
        continue outer;
      }
    }
    out += text[i];
    i++;
  }
  return out;
}

/** The Chinese product words of a text, in order ("推荐一些无线耳机" → ["耳机"]), longest term first. */
export function chineseTermsIn(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  outer: while (i < text.length) {
    for (const [zh] of SORTED) {
      if (text.startsWith(zh, i)) {
        found.push(zh);
        i += zh.length;
        continue outer;
      }
    }
    i++;
  }
  return found;
}

/** The Chinese word for a catalog colour ("Volt" → "荧光绿"), or the name itself when none is known. */
export function chineseColorName(color: string): string {
  return CHINESE_COLOR_WORDS[color.trim()] ?? color;
}
